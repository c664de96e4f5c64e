package unixsock

// reach calls use with path, which must fit as it is: Windows has no
// /proc to name a directory by, and making a symlink needs a privilege.
func reach(path string, use func(addr string) error) error {
	if !fits(path) {
		return tooLong(path, "this system has no short name for its directory")
	}
	return use(path)
}
