package main

// filesLimit is 0 on Windows, which has no open-files limit on a
// process's handles short of its memory.
func filesLimit() uint64 { return 0 }
