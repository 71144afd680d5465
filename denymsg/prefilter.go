package denymsg

import "bytes"

// prefilter finds the first place in a buffer where a signature may start,
// without looking at every byte. It is Wu–Manber over two-byte blocks: the
// window is as long as the shortest key (m); the last two bytes of the window
// say how far it may jump before a key could end in it. Typical output jumps
// most of m bytes at a time, and a key is verified only where a block ends
// some key's window. Longer keys make longer jumps: keep m at 14 or more.
type prefilter struct {
	m     int
	shift [blocks]uint8 // jump for a block; 0: a key's window may end here
	group [blocks]uint8 // index into lists for blocks with shift 0
	lists [][][]byte    // keys whose window ends in the block
}

// keys is the prefilter built from the signature texts, shared by all streams.
var keys = newPrefilter(signatureTexts())

func signatureTexts() []string {
	out := make([]string, len(signatures))
	for i, s := range signatures {
		out[i] = s.text
	}
	return out
}

func newPrefilter(texts []string) *prefilter {
	f := &prefilter{m: 255, lists: [][][]byte{nil}}
	for _, t := range texts {
		f.m = min(f.m, len(t))
	}
	for i := range f.shift {
		f.shift[i] = uint8(f.m - 1)
	}
	for _, t := range texts {
		for q := 0; q+2 <= f.m; q++ {
			h := block(t[q], t[q+1])
			f.shift[h] = min(f.shift[h], uint8(f.m-2-q))
		}
		h := block(t[f.m-2], t[f.m-1])
		if f.group[h] == 0 {
			f.group[h] = uint8(len(f.lists))
			f.lists = append(f.lists, nil)
		}
		f.lists[f.group[h]] = append(f.lists[f.group[h]], []byte(t))
	}
	return f
}

// blocks is the size of the block tables. A block is hashed to 12 bits (the
// low 6 bits of each byte keep letters, their case, digits and punctuation
// apart) so both tables fit in L1 cache. Collisions only shorten jumps; every
// candidate is verified.
const blocks = 1 << 12

func block(a, b byte) uint16 { return uint16(a&0x3f)<<6 | uint16(b&0x3f) }

// index returns the offset of the first key in t, or -1.
func (f *prefilter) index(t []byte) int {
	for end := f.m - 1; end < len(t); {
		s := f.shift[block(t[end-1], t[end])]
		if s != 0 {
			end += int(s)
			continue
		}
		start := end - f.m + 1
		for _, k := range f.lists[f.group[block(t[end-1], t[end])]] {
			if bytes.HasPrefix(t[start:], k) {
				return start
			}
		}
		end++
	}
	return -1
}
