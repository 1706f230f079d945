#include "textflag.h"

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

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
