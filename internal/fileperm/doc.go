// Package fileperm says whether a file that holds a secret (the admin
// token, the console's key) is private to its owner, by the means each
// platform gives Go. It does not create or change files.
package fileperm
