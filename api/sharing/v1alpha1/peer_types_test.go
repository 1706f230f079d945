package v1alpha1

import "testing"

func TestPeerSpecDirections(t *testing.T) {
	tests := []struct {
		spec                    PeerSpec
		lends, borrows, virtual bool
	}{
		{PeerSpec{Role: RoleProvider}, true, false, true},
		{PeerSpec{Role: RoleConsumer}, false, true, false},
		{PeerSpec{Role: RoleBoth}, true, true, true},
		{PeerSpec{Role: RoleBoth, Disabled: true}, false, false, false},
		{PeerSpec{Role: RoleProvider, Broker: true}, true, false, false},
	}
	for _, tt := range tests {
		s := tt.spec
		if s.Lends() != tt.lends || s.Borrows() != tt.borrows || s.HostsVirtualNodes() != tt.virtual {
			t.Errorf("%+v: Lends %v, Borrows %v, HostsVirtualNodes %v; want %v, %v, %v",
				s, s.Lends(), s.Borrows(), s.HostsVirtualNodes(), tt.lends, tt.borrows, tt.virtual)
		}
	}
}
