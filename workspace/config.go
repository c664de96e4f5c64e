package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/leasegate/leasegate/gate"
)

// ConfigFile is the name of the optional config file at the workspace root.
const ConfigFile = "leasegate.json"

// Config is what leasegate.json may change. Globs are clean
// workspace-relative patterns as gate.CleanPath leaves them unchanged:
// `*` and `?` within a segment, `**` for any number of segments
// (write `build/**`, not `build/`).
type Config struct {
	// Include lists globs gated even when git ignores them. Default none.
	Include []string `json:"include,omitempty"`
	// Exclude lists globs never gated; they win over Include. Default none.
	Exclude []string `json:"exclude,omitempty"`
	// Pairs are pair rules "FROM -> TO" (see gate.CompilePairRules).
	// Default gate.DefaultPairRules; an empty list pairs nothing.
	Pairs []string `json:"pairs"`
	// GateGitIgnored gates paths git ignores too. Default false: ignored
	// paths (build outputs, node_modules/) are regenerable, and gating them
	// turns every parallel build into contention.
	GateGitIgnored bool `json:"gate_git_ignored,omitempty"`
}

// DefaultConfig is the configuration of a workspace without leasegate.json.
func DefaultConfig() Config {
	return Config{Pairs: slices.Clone(gate.DefaultPairRules)}
}

// Validate reports every invalid glob and pair rule, naming the field.
func (c *Config) Validate() error {
	errs := append(validateGlobs("include", c.Include), validateGlobs("exclude", c.Exclude)...)
	for i, r := range c.Pairs {
		if _, err := gate.CompilePairRules([]string{r}); err != nil {
			errs = append(errs, fmt.Errorf("pairs[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

func validateGlobs(field string, globs []string) []error {
	var errs []error
	for i, g := range globs {
		clean, err := gate.CleanPath(g)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s[%d]: %w", field, i, err))
		case clean != g:
			errs = append(errs, fmt.Errorf("%s[%d]: glob %q is not clean; write %q", field, i, g, clean))
		}
	}
	return errs
}

// PairRules compiles Pairs.
func (c *Config) PairRules() ([]gate.PairRule, error) {
	rules, err := gate.CompilePairRules(c.Pairs)
	if err != nil {
		return nil, fmt.Errorf("pairs: %w", err)
	}
	return rules, nil
}

// LoadConfig reads ConfigFile at root over DefaultConfig and validates it.
// A missing file gives the defaults; a field the file leaves out keeps its
// default. Unknown fields are errors. Errors name the file and the field.
func LoadConfig(root string) (Config, error) {
	path := filepath.Join(root, ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), nil
	}
	if err != nil {
		return Config{}, err
	}
	c, err := parseConfig(data)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

func parseConfig(data []byte) (Config, error) {
	c := DefaultConfig()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Config{}, errors.New("unexpected data after the JSON object")
	}
	return c, nil
}

// jsonError rewords a decoding error so that it names the field.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return fmt.Errorf("field %q: want %s, got JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("invalid JSON at byte %d: %w", syntaxErr.Offset, err)
	case errors.Is(err, io.EOF):
		return errors.New("empty file; want a JSON object such as {}")
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: ")) // `unknown field "x"`
}
