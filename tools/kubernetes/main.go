// check-k8s-manifests: reads Kubernetes manifests (YAML, several documents to a
// file, e.g. `helm template` output) and decodes each one strictly into the
// Kubernetes API's own Go types (client-go's scheme): an unknown kind or
// apiVersion, a misspelt or misplaced field, a duplicate field or a value of
// the wrong type fails, as the API server would refuse it. Names are checked
// as the API server checks them (DNS-1123), and so are port names. Exits 1
// with one line per problem.
//
// Why not kubeconform: it validates against JSON schemas downloaded from
// GitHub, which this machine cannot reach; the Go types come from the Go
// module proxy and are what those schemas are generated from.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: check-k8s-manifests FILE... (- for stdin)")
		os.Exit(2)
	}
	decoder := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	problems, count := 0, 0
	for _, file := range os.Args[1:] {
		docs, err := documents(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			problems++
			continue
		}
		for i, doc := range docs {
			count++
			for _, p := range check(decoder, doc) {
				fmt.Fprintf(os.Stderr, "%s: document %d: %s\n", file, i+1, p)
				problems++
			}
		}
	}
	if problems > 0 {
		os.Exit(1)
	}
	fmt.Printf("%d objects valid\n", count)
}

// documents splits a YAML stream into its non-empty documents.
func documents(file string) ([][]byte, error) {
	var in io.Reader = os.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(in))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

func stripComments(doc []byte) []byte {
	var out []string
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

func check(decoder runtime.Decoder, doc []byte) []string {
	obj, gvk, err := decoder.Decode(doc, nil, nil)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", gvk.Kind, err)}
	}
	where := fmt.Sprintf("%s %q", gvk.Kind, accessor.GetName())
	for _, msg := range validation.IsDNS1123Subdomain(accessor.GetName()) {
		problems = append(problems, fmt.Sprintf("%s: metadata.name: %s", where, msg))
	}
	for key, value := range accessor.GetLabels() {
		for _, msg := range validation.IsQualifiedName(key) {
			problems = append(problems, fmt.Sprintf("%s: label %q: %s", where, key, msg))
		}
		for _, msg := range validation.IsValidLabelValue(value) {
			problems = append(problems, fmt.Sprintf("%s: label %s=%q: %s", where, key, value, msg))
		}
	}
	var pod *corev1.PodSpec
	switch o := obj.(type) {
	case *appsv1.Deployment:
		pod = &o.Spec.Template.Spec
	case *batchv1.Job:
		pod = &o.Spec.Template.Spec
	}
	if pod != nil {
		for _, c := range pod.Containers {
			if c.Image == "" {
				problems = append(problems, fmt.Sprintf("%s: container %q has no image", where, c.Name))
			}
			for _, port := range c.Ports {
				if port.Name == "" {
					continue
				}
				for _, msg := range validation.IsValidPortName(port.Name) {
					problems = append(problems, fmt.Sprintf("%s: container %q port %q: %s", where, c.Name, port.Name, msg))
				}
			}
		}
	}
	return problems
}
