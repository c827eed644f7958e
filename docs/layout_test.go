package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ragstat/ragstat"

// TestLayout checks the packages against api.md's table: the public
// packages are exactly those it lists, each imports only packages of lower
// layers (a helper under internal/ stands at the highest layer of the
// public packages it reaches, 0 when none), and nothing outside cmd/ragstat
// imports what is under it.
func TestLayout(t *testing.T) {
	layers := apiLayers(t)
	if len(layers) > 16 {
		t.Errorf("%d public packages, at most 16", len(layers))
	}
	imports := packageImports(t, "..")
	level := helperLayers(layers, imports)
	for pkg, deps := range imports {
		layer, public := layers[pkg]
		switch {
		case strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "bench/") || pkg == "docs":
		case strings.HasPrefix(pkg, "internal/") || strings.Contains(pkg, "/internal/"):
		case !public:
			t.Errorf("%s is a public package that api.md does not list", pkg)
		}
		for _, dep := range deps {
			switch {
			case strings.HasPrefix(dep, "cmd/") && !strings.HasPrefix(pkg, "cmd/"):
				t.Errorf("%s imports %s, which only the command line may", pkg, dep)
			case public && level(dep) >= layer:
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports lower layers only", pkg, layer, dep, level(dep))
			}
		}
	}
	for pkg := range layers {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("api.md lists %s, which is no package", pkg)
		}
	}
}

// helperLayers gives every package its layer: a public package's from
// the table, a helper's the highest its imports reach (0: none public).
func helperLayers(layers map[string]int, imports map[string][]string) func(string) int {
	memo := map[string]int{}
	var level func(string) int
	level = func(pkg string) int {
		if l, ok := layers[pkg]; ok {
			return l
		}
		if l, ok := memo[pkg]; ok {
			return l
		}
		memo[pkg] = 0 // an import cycle does not compile; this ends the walk
		l := 0
		for _, dep := range imports[pkg] {
			l = max(l, level(dep))
		}
		memo[pkg] = l
		return l
	}
	return level
}

// apiLayers reads api.md's table: each public package's layer.
func apiLayers(t *testing.T) map[string]int {
	data, err := os.ReadFile("api.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (\\d+) \\| `([a-z/]+)` \\|")
	layers := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		layers[m[2]], _ = strconv.Atoi(m[1])
	}
	if len(layers) == 0 {
		t.Fatal("api.md lists no package")
	}
	return layers
}

// packageImports maps every package of the module under root (by its
// path in the module) to the module's packages its non-test files import.
func packageImports(t *testing.T, root string) map[string][]string {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "e2e" || name == "examples") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			dep, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(dep, module+"/"); ok && !slices.Contains(out[pkg], dep) {
				out[pkg] = append(out[pkg], dep)
			}
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
