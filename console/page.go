package console

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
)

//go:embed assets
var assets embed.FS

var pageTemplate = template.Must(template.ParseFS(assets, "assets/page.html"))

// pageData is what the page template needs; everything else arrives over
// the event stream.
type pageData struct {
	CSRF     string
	Operator string
}

// page serves the console's one page.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	se, _ := s.auth.session(r)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := pageTemplate.Execute(w, pageData{CSRF: se.csrf, Operator: s.operator}); err != nil {
		s.log.Warn("page not rendered", "error", err)
	}
}

// staticFiles serves the embedded script and style sheet.
func staticFiles() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	return http.FileServerFS(sub)
}
