package main

// umask does nothing on Windows, which has no file mode creation mask: a
// new file's access comes from its directory's ACL.
func umask(m int) int { return m }
