// Package neterr tells network errors apart the same way on every
// platform, where the standard library's errno values differ (Windows
// reports Winsock's own numbers). It does not dial or listen.
package neterr
