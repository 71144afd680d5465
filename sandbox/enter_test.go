package sandbox

import "testing"

func TestSearchable(t *testing.T) {
	for _, tc := range []struct {
		name               string
		perm, owner, group uint32
		uid                uint32
		groups             []uint32
		want               bool
	}{
		{"root, mode 000", 0, 0, 0, 0, []uint32{0}, false},
		{"root, owner x", 0o100, 0, 0, 0, nil, true},
		{"owner without x, others with", 0o601, 5, 5, 5, []uint32{5}, false},
		{"group member", 0o010, 1, 7, 5, []uint32{5, 7}, true},
		{"other", 0o001, 1, 7, 5, []uint32{5}, true},
		{"other without x", 0o770, 1, 7, 5, []uint32{5}, false},
	} {
		if got := searchable(tc.perm, tc.owner, tc.group, tc.uid, tc.groups); got != tc.want {
			t.Errorf("searchable(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
