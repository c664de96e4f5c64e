package workspace

import "sync"

// maxCached bounds each verdict map; a full map is emptied rather than
// evicted entry by entry (paths a worker touches repeat; the rest refill).
const maxCached = 1 << 16

// ruling is one classification. blind marks a directory below which git
// cannot answer ignore questions (a symlink, a submodule).
type ruling struct {
	class Class
	blind bool
	why   string
}

// verdictCache holds verdicts for files and for directory subtrees. A
// verdict computed before an invalidation is dropped: put takes the
// generation read before the computation started.
type verdictCache struct {
	mu    sync.RWMutex
	gen   uint64
	files map[string]ruling
	trees map[string]ruling
}

func newVerdictCache() *verdictCache {
	return &verdictCache{files: map[string]ruling{}, trees: map[string]ruling{}}
}

func (c *verdictCache) get(tree bool, rel string) (ruling, uint64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.pick(tree)[rel]
	return v, c.gen, ok
}

func (c *verdictCache) put(gen uint64, tree bool, rel string, v ruling) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	m := c.pick(tree)
	if len(m) >= maxCached {
		clear(m)
	}
	m[rel] = v
}

// markBlind records that git cannot answer below the directory dir.
func (c *verdictCache) markBlind(gen uint64, dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.trees[dir]; ok && gen == c.gen {
		v.blind = true
		c.trees[dir] = v
	}
}

func (c *verdictCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.files)
	clear(c.trees)
}

func (c *verdictCache) pick(tree bool) map[string]ruling {
	if tree {
		return c.trees
	}
	return c.files
}
