#include "textflag.h"

// func timesLambda8FMA(h []float64, in int, lambda []float64, z []float64)
//
// For each row r of len(z)/8 rows: z[8r:8r+8] = sum over k < in of
// h[in*r+k] * lambda[8k:8k+8], k in order, each step one fused
// multiply-add. The caller checks the lengths.
TEXT ·timesLambda8FMA(SB), NOSPLIT, $0-80
	MOVQ h_base+0(FP), SI
	MOVQ in+24(FP), BX
	MOVQ lambda_base+32(FP), R8
	MOVQ z_base+56(FP), DX
	MOVQ z_len+64(FP), R9
	SHRQ $3, R9
	TESTQ R9, R9
	JEQ done
	TESTQ BX, BX
	JEQ done

row:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ R8, DI
	MOVQ BX, CX

k:
	VBROADCASTSD (SI), Y2
	VFMADD231PD (DI), Y2, Y0
	VFMADD231PD 32(DI), Y2, Y1
	ADDQ $8, SI
	ADDQ $64, DI
	DECQ CX
	JNZ k

	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ $64, DX
	DECQ R9
	JNZ row

done:
	VZEROUPPER
	RET

// func reluTimesLambda8FMA(pre, c, sum, act, lambda, z []float64)
//
// For each row r of len(z)/8 rows, with in = len(c) (a multiple of 4):
// act[in*r:in*r+in] = max(pre[in*r:in*r+in] + c, 0), added into sum, and
// z[8r:8r+8] = sum over k < in of act[in*r+k] * lambda[8k:8k+8], k in
// order, each step one fused multiply-add. MAXPD makes NaN 0. The caller
// checks the lengths.
TEXT ·reluTimesLambda8FMA(SB), NOSPLIT, $0-144
	MOVQ pre_base+0(FP), SI
	MOVQ c_base+24(FP), R10
	MOVQ c_len+32(FP), BX
	MOVQ sum_base+48(FP), R11
	MOVQ act_base+72(FP), R12
	MOVQ lambda_base+96(FP), R8
	MOVQ z_base+120(FP), DX
	MOVQ z_len+128(FP), R9
	SHRQ $3, R9
	TESTQ R9, R9
	JEQ rdone
	MOVQ BX, R13
	SHRQ $2, R13
	TESTQ R13, R13
	JEQ rdone
	VXORPD Y3, Y3, Y3

rrow:
	XORQ AX, AX
	MOVQ R13, CX

rblk:
	VMOVUPD (SI)(AX*1), Y4
	VADDPD (R10)(AX*1), Y4, Y4
	VMAXPD Y3, Y4, Y4
	VMOVUPD Y4, (R12)(AX*1)
	VADDPD (R11)(AX*1), Y4, Y5
	VMOVUPD Y5, (R11)(AX*1)
	ADDQ $32, AX
	DECQ CX
	JNZ rblk

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ R8, DI
	MOVQ R12, R14
	MOVQ BX, CX

rk:
	VBROADCASTSD (R14), Y2
	VFMADD231PD (DI), Y2, Y0
	VFMADD231PD 32(DI), Y2, Y1
	ADDQ $8, R14
	ADDQ $64, DI
	DECQ CX
	JNZ rk

	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ $64, DX
	LEAQ (SI)(BX*8), SI
	LEAQ (R12)(BX*8), R12
	DECQ R9
	JNZ rrow

rdone:
	VZEROUPPER
	RET

// func reluDot4FMA(pre, c, sum, act, lambda, z []float64)
//
// reluTimesLambda8FMA for one output: z[r] is the dot product of act's
// row r with lambda[:in], summed four columns at a time with fused
// multiply-adds and then across the four.
TEXT ·reluDot4FMA(SB), NOSPLIT, $0-144
	MOVQ pre_base+0(FP), SI
	MOVQ c_base+24(FP), R10
	MOVQ c_len+32(FP), BX
	MOVQ sum_base+48(FP), R11
	MOVQ act_base+72(FP), R12
	MOVQ lambda_base+96(FP), R8
	MOVQ z_base+120(FP), DX
	MOVQ z_len+128(FP), R9
	TESTQ R9, R9
	JEQ ddone
	MOVQ BX, R13
	SHRQ $2, R13
	TESTQ R13, R13
	JEQ ddone
	VXORPD Y3, Y3, Y3

drow:
	XORQ AX, AX
	MOVQ R13, CX
	VXORPD Y0, Y0, Y0

dblk:
	VMOVUPD (SI)(AX*1), Y4
	VADDPD (R10)(AX*1), Y4, Y4
	VMAXPD Y3, Y4, Y4
	VMOVUPD Y4, (R12)(AX*1)
	VADDPD (R11)(AX*1), Y4, Y5
	VMOVUPD Y5, (R11)(AX*1)
	VFMADD231PD (R8)(AX*1), Y4, Y0
	ADDQ $32, AX
	DECQ CX
	JNZ dblk

	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VHADDPD X0, X0, X0
	VMOVSD X0, (DX)
	ADDQ $8, DX
	LEAQ (SI)(BX*8), SI
	LEAQ (R12)(BX*8), R12
	DECQ R9
	JNZ drow

ddone:
	VZEROUPPER
	RET
