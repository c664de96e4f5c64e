package workspace

import (
	"errors"
	"testing"
)

// TestVolumeCase: names fold until a volume says it tells them apart, and
// once any volume has said it folds they fold again, the side that never
// lets a write pass ungated.
func TestVolumeCase(t *testing.T) {
	tests := []struct {
		name string
		saw  []bool
		want bool
	}{
		{name: "no volume asked", want: true},
		{name: "a folding volume", saw: []bool{true}, want: true},
		{name: "a case-sensitive volume", saw: []bool{false}, want: false},
		{name: "case-sensitive, then folding", saw: []bool{false, true}, want: true},
		{name: "folding, then case-sensitive", saw: []bool{true, false}, want: true},
	}
	for _, tt := range tests {
		var v volumeCase
		for _, folds := range tt.saw {
			v.saw(folds)
		}
		if got := v.folds(); got != tt.want {
			t.Errorf("%s: folds() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFoldsCase: pathconf(_PC_CASE_SENSITIVE)'s answers, and no answer
// taken as folding (the default volume format).
func TestFoldsCase(t *testing.T) {
	tests := []struct {
		answer int
		err    error
		want   bool
	}{
		{answer: 1, want: false},
		{answer: 0, want: true},
		{answer: -1, want: true},
		{answer: -1, err: errors.New("invalid argument"), want: true},
		{answer: 1, err: errors.New("invalid argument"), want: true},
	}
	for _, tt := range tests {
		if got := foldsCase(tt.answer, tt.err); got != tt.want {
			t.Errorf("foldsCase(%d, %v) = %v, want %v", tt.answer, tt.err, got, tt.want)
		}
	}
}

// TestRespelling: the names a folding, normalization-insensitive volume
// may hand back for an element, and one it may not (a volume's label for
// its mount point).
func TestRespelling(t *testing.T) {
	tests := []struct {
		name, elem string
		want       bool
	}{
		{name: "Foo.go", elem: "FOO.go", want: true},
		{name: "Foo.go", elem: "Foo.go", want: true},
		{name: "e\u0301te\u0301.go", elem: "\u00c9T\u00c9.go", want: true}, // decomposed on disk, composed and upper asked
		{name: "\u00e9t\u00e9.go", elem: "E\u0301TE\u0301.go", want: true}, // composed on disk, decomposed asked
		{name: "Ä", elem: "ä", want: true},
		{name: "Macintosh HD", elem: "Data"},
		{name: "Foo.go", elem: "Fooo.go"},
		{name: "ete.go", elem: "\u00e9t\u00e9.go"},
	}
	for _, tt := range tests {
		if got := respelling(tt.name, tt.elem); got != tt.want {
			t.Errorf("respelling(%q, %q) = %v, want %v", tt.name, tt.elem, got, tt.want)
		}
	}
}
