// Package k8s holds the Kubernetes Indexed Job that runs example/maintain
// as the workers of one sharded job (job.yaml), and its test: a module of
// its own, so that the Kubernetes API types stay out of cqlgen's.
package k8s

import (
	"context"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

// readJob decodes job.yaml strictly: a field the Job type does not have
// (a typo, a field of another API version) is an error, not ignored.
func readJob(t *testing.T) *batchv1.Job {
	t.Helper()
	b, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(b, &job); err != nil {
		t.Fatalf("job.yaml is not a batch/v1 Job: %v", err)
	}
	return &job
}

func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// The fields the worker relies on: an Indexed Job (the index is the
// shard), CQLGEN_SHARDS equal to its completions, every index run at
// once, a failed pod retried with its index and only after it is gone,
// a bad command line not retried, the Cassandra password from a secret,
// and the resources the runbook sizes.
func TestJobManifest(t *testing.T) {
	job := readJob(t)
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("apiVersion %q, kind %q; want batch/v1 Job", job.APIVersion, job.Kind)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v: want Indexed, which gives each pod JOB_COMPLETION_INDEX", deref(s.CompletionMode))
	}
	if s.Completions == nil || *s.Completions < 1 {
		t.Fatalf("completions %v: want the number of workers", s.Completions)
	}
	n := int(*s.Completions)
	if s.Parallelism == nil || int(*s.Parallelism) != n {
		t.Errorf("parallelism %v, completions %d: each index is a share of the ranges, and a share waiting for a pod delays the whole job", deref(s.Parallelism), n)
	}
	if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex < 1 {
		t.Errorf("backoffLimitPerIndex %v: a failed worker must be retried with its index", deref(s.BackoffLimitPerIndex))
	}
	if s.PodReplacementPolicy == nil || *s.PodReplacementPolicy != batchv1.Failed {
		t.Errorf("podReplacementPolicy %v: want Failed, so that a replacement starts once the pod it replaces is gone", deref(s.PodReplacementPolicy))
	}
	var failJob []int32
	if p := s.PodFailurePolicy; p != nil {
		for _, r := range p.Rules {
			if r.Action == batchv1.PodFailurePolicyActionFailJob && r.OnExitCodes != nil && r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn {
				failJob = append(failJob, r.OnExitCodes.Values...)
			}
		}
	}
	if !contains(failJob, 2) {
		t.Errorf("podFailurePolicy fails the Job on exit codes %v: want 2 (a bad command line, which no retry mends) among them", failJob)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: backoffLimitPerIndex and podFailurePolicy need Never", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers: want the worker alone", len(pod.Containers))
	}
	c := &pod.Containers[0]
	if c.Name != "worker" {
		t.Errorf("container %q: podFailurePolicy names it worker", c.Name)
	}
	if len(c.Command) > 0 && (len(c.Command) != 1 || c.Command[0] != entrypoint(t)) {
		t.Errorf("command %v: want none (the image's ENTRYPOINT, %s)", c.Command, entrypoint(t))
	}
	if e := env(c, "CQLGEN_SHARDS"); e == nil || e.Value != strconv.Itoa(n) {
		t.Errorf("CQLGEN_SHARDS %v: want %d, the Job's completions", e, n)
	}
	if e := env(c, "JOB_COMPLETION_INDEX"); e != nil {
		t.Errorf("JOB_COMPLETION_INDEX is set by hand (%v): Kubernetes sets it, a pod its own", e)
	}
	if e := env(c, "CASSANDRA_HOSTS"); e == nil || e.Value == "" {
		t.Errorf("no CASSANDRA_HOSTS")
	}
	if e := env(c, "CASSANDRA_PASSWORD"); e != nil && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
		t.Errorf("CASSANDRA_PASSWORD is not read from a secret: %+v", e)
	}
	req, lim := c.Resources.Requests, c.Resources.Limits
	if req.Cpu().IsZero() || req.Memory().IsZero() || lim.Memory().IsZero() {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit (docs/runbook.md sizes them)", c.Resources)
	}
	if lim.Memory().Cmp(resource.MustParse("64Mi")) < 0 || lim.Memory().Cmp(*req.Memory()) < 0 {
		t.Errorf("memory limit %v under 64Mi or under the request %v", lim.Memory(), req.Memory())
	}

	// The worker's own command line takes the args, in every pod: each
	// index i runs shard i of n, of the one job.
	seen := map[int]bool{}
	for i := range n {
		o := parse(t, c.Args, map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i), "CQLGEN_SHARDS": env(c, "CQLGEN_SHARDS").Value})
		if o.Job == "" || o.Shards != n || o.Shard != i || seen[o.Shard] {
			t.Fatalf("index %d runs with job %q, shard %d of %d", i, o.Job, o.Shard, o.Shards)
		}
		seen[o.Shard] = true
		if o.Ranges < 16*n {
			t.Errorf("-ranges %d for %d workers: give each many ranges (a retried pod redoes one range at most per -concurrency)", o.Ranges, n)
		}
		if o.Rate <= 0 {
			t.Errorf("no -rate: the job's writes a second are unbounded on a busy cluster")
		}
	}
}

// parse runs the worker's command line, cqlmaintain.Run, on args in an
// environment, against a maintainer that records the Options it is given.
func parse(t *testing.T, args []string, vars map[string]string) cqlmaintain.Options {
	t.Helper()
	for k, v := range vars {
		t.Setenv(k, v)
	}
	m := &recorder{}
	var errs strings.Builder
	if code := cqlmaintain.Run(context.Background(), args, io.Discard, &errs, m); code != 0 || m.o == nil {
		t.Fatalf("the worker refuses args %q: exit %d\n%s", args, code, errs.String())
	}
	return *m.o
}

// recorder is example/music's Track, as far as a command line sees it.
type recorder struct{ o *cqlmaintain.Options }

func (r *recorder) Entity() string   { return "Track" }
func (r *recorder) Tables() []string { return []string{"top_tracks_by_artist"} }
func (r *recorder) run(o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	c := *o
	r.o = &c
	return &cqlmaintain.Report{Entity: "Track"}, nil
}
func (r *recorder) Verify(_ context.Context, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	return r.run(o)
}
func (r *recorder) Repair(_ context.Context, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	return r.run(o)
}
func (r *recorder) Backfill(_ context.Context, _ string, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	return r.run(o)
}

// entrypoint is the binary the image of ../Dockerfile runs.
func entrypoint(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ENTRYPOINT \["([^"]+)"\]$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("../Dockerfile has no ENTRYPOINT [\"...\"]")
	}
	return string(m[1])
}

func deref[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}

func contains(vs []int32, v int32) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// The image runs what the manifest expects: a binary built from
// example/maintain, its ENTRYPOINT, as a user that is not root.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	if !strings.Contains(df, "go build") || !strings.Contains(df, "./example/maintain") {
		t.Errorf("the Dockerfile does not build ./example/maintain")
	}
	if !regexp.MustCompile(`(?m)^USER [1-9][0-9]*`).MatchString(df) {
		t.Errorf("the Dockerfile runs as root, or names its user: runAsNonRoot needs a numeric user")
	}
	if e := entrypoint(t); !strings.Contains(df, "-o "+e+" ") {
		t.Errorf("ENTRYPOINT %s is not the binary built", e)
	}
	job := readJob(t)
	sc := job.Spec.Template.Spec.Containers[0].SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("the worker may run as root")
	}
}
