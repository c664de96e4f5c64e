package bolt

// syncDir has nothing to do on Windows: NTFS journals the creation of a
// file's name itself, and a directory cannot be flushed (FlushFileBuffers
// needs a handle opened for writing, which a directory never is).
func syncDir(string) error { return nil }
