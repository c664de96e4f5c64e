package workspace

import (
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nameAttrs asks getattrlist(2) for ATTR_CMN_NAME alone.
var nameAttrs = unix.Attrlist{Bitmapcount: unix.ATTR_BIT_MAP_COUNT, Commonattr: unix.ATTR_CMN_NAME}

// nameReply is getattrlist's reply to nameAttrs: its length, an
// attrreference_t (where the name starts, counted from the reference,
// which is 4 bytes into the reply; and the name's length with its NUL),
// then the name: at most 255 UTF-16 units, 765 bytes of UTF-8.
type nameReply struct {
	length uint32
	offset int32
	size   uint32
	data   [1024]byte
}

// onDisk returns the existing path p, not a symlink, with its final
// element spelt as its directory keeps it: APFS and HFS+ by default find
// "FOO.go" and "foo.go", or "é" composed and decomposed, as one name, and
// keep the spelling the file was created with. getattrlist(ATTR_CMN_NAME)
// reads that spelling without opening the file, as the system's
// realpath(3) does. p itself when the name cannot be read or is not p's
// final element spelt another way.
func onDisk(p string) string {
	elem := filepath.Base(p)
	name, ok := nameOf(p)
	if !ok || name == elem || !respelling(name, elem) {
		return p
	}
	return filepath.Join(filepath.Dir(p), name)
}

// nameOf asks the file system for the name of the file at p, not
// following a final symlink.
func nameOf(p string) (string, bool) {
	path, err := unix.BytePtrFromString(p)
	if err != nil {
		return "", false
	}
	var reply nameReply
	_, _, errno := unix.Syscall6(unix.SYS_GETATTRLIST, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&nameAttrs)),
		uintptr(unsafe.Pointer(&reply)), unsafe.Sizeof(reply), unix.FSOPT_NOFOLLOW, 0)
	if errno != 0 {
		return "", false
	}
	// The name starts at 4+offset bytes into the reply; data at 12.
	start, end := int(reply.offset)-8, int(reply.offset)-8+int(reply.size)-1
	if reply.size < 2 || start < 0 || end > len(reply.data) || uint32(4+int(reply.offset)+int(reply.size)) > reply.length {
		return "", false
	}
	return string(reply.data[start:end]), true
}
