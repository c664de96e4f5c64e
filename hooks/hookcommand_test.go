package hooks

import (
	"slices"
	"strings"
	"testing"
)

// TestWindowsHookCommand: the hook line install writes on Windows, for
// each agent in the shell that agent runs it with (Codex: cmd.exe; Gemini
// CLI and Cursor: PowerShell), names the binary literally whatever its
// path holds, and reads back as the binary and `hook AGENT`.
func TestWindowsHookCommand(t *testing.T) {
	type want struct{ cmd, ps string }
	for exe, w := range map[string]want{
		`C:\tools\leasegate.exe`: {`C:\tools\leasegate.exe hook codex`, `& 'C:\tools\leasegate.exe' hook AGENT`},
		`C:\Program Files\leasegate\leasegate.exe`: {`"C:\Program Files\leasegate\leasegate.exe" hook codex`,
			`& 'C:\Program Files\leasegate\leasegate.exe' hook AGENT`},
		`D:\a&b (x86)\^bin\leasegate.exe`: {`"D:\a&b (x86)\^bin\leasegate.exe" hook codex`, `& 'D:\a&b (x86)\^bin\leasegate.exe' hook AGENT`},
		`C:\Users\o'brien\$env\leasegate.exe`: {`"C:\Users\o'brien\$env\leasegate.exe" hook codex`,
			`& 'C:\Users\o''brien\$env\leasegate.exe' hook AGENT`},
		"C:\\Users\\Jos\u00e9\u2019s\\leasegate.exe": {"\"C:\\Users\\Jos\u00e9\u2019s\\leasegate.exe\" hook codex",
			"& 'C:\\Users\\Jos\u00e9\u2019\u2019s\\leasegate.exe' hook AGENT"},
		`\\server\share\leasegate.exe`: {`\\server\share\leasegate.exe hook codex`, `& '\\server\share\leasegate.exe' hook AGENT`},
	} {
		for _, a := range []Agent{Codex, Gemini, Cursor} {
			line, err := windowsHookCommand(a, exe)
			if err != nil {
				t.Fatalf("%s, %s: %v", a, exe, err)
			}
			expect := w.cmd
			if a != Codex {
				expect = strings.Replace(w.ps, "AGENT", string(a), 1)
			}
			if line != expect {
				t.Errorf("%s hook line for %s = %s, want %s", a, exe, line, expect)
			}
			if got := windowsCommandWords(line); !slices.Equal(got, []string{exe, "hook", string(a)}) {
				t.Errorf("%s line %s reads back as %q", a, line, got)
			}
		}
	}
}

// TestWindowsHookCommandRefusesWhatCmdExpands: a path cmd.exe would not
// take literally even in quotes (%NAME% is expanded there) is refused for
// Codex with the reason, and written for the PowerShell agents, where it
// is literal.
func TestWindowsHookCommandRefusesWhatCmdExpands(t *testing.T) {
	exe := `C:\100%PATH%\leasegate.exe`
	if line, err := windowsHookCommand(Codex, exe); err == nil || !strings.Contains(err.Error(), "cmd.exe") || !strings.Contains(err.Error(), exe) {
		t.Fatalf("codex hook line for %s = %q, %v; want a refusal naming the path and cmd.exe", exe, line, err)
	}
	if line, err := windowsHookCommand(Gemini, exe); err != nil || line != `& 'C:\100%PATH%\leasegate.exe' hook gemini` {
		t.Fatalf("gemini hook line for %s = %q, %v", exe, line, err)
	}
}

// TestWindowsCommandWordsHandWritten: lines a user may have written by hand
// in either shell's plain form are read as those shells read them.
func TestWindowsCommandWordsHandWritten(t *testing.T) {
	for line, want := range map[string][]string{
		`C:\tools\leasegate.exe hook codex`:          {`C:\tools\leasegate.exe`, "hook", "codex"},
		`leasegate hook cursor`:                      {"leasegate", "hook", "cursor"},
		`&  'C:\x y\leasegate.exe'  hook  gemini `:   {`C:\x y\leasegate.exe`, "hook", "gemini"},
		`"C:\x y\leasegate.exe" hook codex`:          {`C:\x y\leasegate.exe`, "hook", "codex"},
		`"C:\x y\leasegate.exe hook codex`:           nil,
		`& 'C:\x y\leasegate.exe hook gemini`:        nil,
		`& 'C:\it''s\leasegate.exe' hook gemini`:     {`C:\it's\leasegate.exe`, "hook", "gemini"},
		`"C:\Program Files\Git\bin\bash.exe" -c 'x'`: {`C:\Program Files\Git\bin\bash.exe`, "-c", "x"},
	} {
		if got := windowsCommandWords(line); !slices.Equal(got, want) {
			t.Errorf("windowsCommandWords(%s) = %q, want %q", line, got, want)
		}
	}
}
