package workspace

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// oNoFollow is no flag on Windows: os.OpenFile has no way to refuse a
// final symbolic link there (and making one needs a privilege or
// developer mode).
const oNoFollow = 0

// ownedByMe is true on Windows: the owner is a SID, not a uid, and git
// itself checks it (safe.directory) when it opens the repository.
func ownedByMe(os.FileInfo) bool { return true }

// fileOwner finds no uid on Windows, where a file's owner is a SID: the
// state directory is left to its ACL.
func fileOwner(os.FileInfo) (uid int, ok bool) { return 0, false }

// sameVolume reports whether a and b are on one volume. FileInfo carries
// no volume on Windows, so both are taken as on one: discovery stops at
// the drive's root anyway.
func sameVolume(a, b os.FileInfo) bool { return true }

// fileID returns the volume serial number and file index of the file at
// path (what os.SameFile compares), not following a final reparse point;
// ok is false for a directory or a path that does not exist.
func fileID(path string) (dev, ino uint64, ok bool) {
	p, err := windows.UTF16PtrFromString(filepath.Clean(strings.TrimSpace(path)))
	if err != nil {
		return 0, 0, false
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return 0, 0, false
	}
	defer windows.CloseHandle(h)
	var fi windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(h, &fi) != nil || fi.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0 {
		return 0, 0, false
	}
	return uint64(fi.VolumeSerialNumber), uint64(fi.FileIndexHigh)<<32 | uint64(fi.FileIndexLow), true
}

// onDisk returns the existing path p with its final element spelt as the
// directory holds it: NTFS ignores case, and "PROGRA~1" is a short name of
// "Program Files". p itself when the name cannot be read.
func onDisk(p string) string {
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return p
	}
	var data windows.Win32finddata
	h, err := windows.FindFirstFile(name, &data)
	if err != nil {
		return p
	}
	windows.FindClose(h)
	return filepath.Join(filepath.Dir(p), windows.UTF16ToString(data.FileName[:]))
}
