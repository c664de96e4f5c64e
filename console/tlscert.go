package console

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leasegate/leasegate/internal/fileperm"
)

// CertValidity is how long a certificate the console generates for itself
// is valid. A year keeps the fingerprint an operator verified stable across
// restarts for a long time; once it has passed, the next start generates a
// new certificate and prints its new fingerprint.
const CertValidity = 365 * 24 * time.Hour

// ErrKeyExposed means the file holding the console's private key is
// accessible to group or others; the console refuses to use such a key.
var ErrKeyExposed = errors.New("console key file is accessible to group or others")

// SelfSignedCert returns the console's own certificate and key, kept
// together in file (mode 0600) so that a restarted console shows the same
// fingerprint. It generates a new one (ECDSA P-256, self-signed, valid for
// CertValidity from now) when the file is missing, holds no usable pair, has
// expired, or does not name every one of hosts. It refuses a file whose
// mode grants anything to group or others (not judged on Windows, whose
// modes do not show it: internal/fileperm), or that is not a regular file.
func SelfSignedCert(file string, hosts []string, now time.Time) (tls.Certificate, error) {
	cert, err := readCert(file)
	switch {
	case errors.Is(err, ErrKeyExposed):
		return tls.Certificate{}, err
	case err == nil && certFits(cert.Leaf, hosts, now):
		return cert, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNoPair):
		return tls.Certificate{}, err
	}
	pemBytes, err := newCertPEM(hosts, now)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("console certificate: %w", err)
	}
	if err := writePrivate(file, pemBytes); err != nil {
		return tls.Certificate{}, fmt.Errorf("console certificate: %w", err)
	}
	return readCert(file)
}

// errNoPair means the certificate file exists but holds no certificate and
// key that belong together; the console replaces it, as it is its own.
var errNoPair = errors.New("no certificate and key")

// readCert reads a certificate and its key from one PEM file.
func readCert(file string) (tls.Certificate, error) {
	fi, err := os.Lstat(file)
	if err != nil {
		return tls.Certificate{}, err
	}
	if !fi.Mode().IsRegular() {
		return tls.Certificate{}, fmt.Errorf("console certificate %s is not a regular file", file)
	}
	if fileperm.Exposed(fi) {
		return tls.Certificate{}, fmt.Errorf("console certificate %s has mode %04o, want 0600 (delete it for a new key): %w", file, fi.Mode().Perm(), ErrKeyExposed)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return tls.Certificate{}, err
	}
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("console certificate %s: %w: %v", file, errNoPair, err)
	}
	return cert, nil
}

// certFits reports whether leaf is valid now and names every host.
func certFits(leaf *x509.Certificate, hosts []string, now time.Time) bool {
	if leaf == nil || now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) {
		return false
	}
	for _, h := range hosts {
		if leaf.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

// newCertPEM generates a key and a self-signed server certificate for
// hosts, both PEM-encoded in one block of bytes.
func newCertPEM(hosts []string, now time.Time) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "leasegate console"},
		NotBefore:    now.Add(-time.Hour), // tolerates a client clock a little behind
		NotAfter:     now.Add(CertValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return append(out, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})...), nil
}

// writePrivate writes data to file with mode 0600 through a temporary file
// renamed into place, so a reader never sees half a key and two consoles
// starting at once leave one whole pair.
func writePrivate(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".console.pem.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// Fingerprint is the SHA-256 of cert's leaf certificate as colon-separated
// hex pairs, as `openssl x509 -noout -fingerprint -sha256` and browsers'
// certificate viewers show it.
func Fingerprint(cert tls.Certificate) string {
	if len(cert.Certificate) == 0 {
		return ""
	}
	sum := sha256.Sum256(cert.Certificate[0])
	pairs := make([]string, len(sum))
	for i, b := range sum {
		pairs[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(pairs, ":")
}
