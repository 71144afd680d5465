package sandbox

// searchable reports whether a process with uid and groups, and no
// capabilities, may search a directory with mode perm owned by owner and
// group: the owner's bits for the owner, the group's for a member, the
// others' for everyone else, as the kernel decides without an ACL.
func searchable(perm uint32, owner, group uint32, uid uint32, groups []uint32) bool {
	switch {
	case uid == owner:
		return perm&0o100 != 0
	case contains(groups, group):
		return perm&0o010 != 0
	}
	return perm&0o001 != 0
}

func contains(list []uint32, x uint32) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}
