package provenance

import "strings"

// CI describes the builder a CI environment identifies.
type CI struct {
	BuilderID    string
	InvocationID string
}

// FromEnv derives the builder id and invocation id from well-known CI
// environment variables; it returns a zero CI outside CI. Recognised:
//
//   - GitHub Actions: builder id "$GITHUB_SERVER_URL/$GITHUB_WORKFLOW_REF"
//     (the workflow file at its ref), invocation
//     "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID/attempts/$GITHUB_RUN_ATTEMPT";
//   - GitLab CI: builder id "$CI_SERVER_URL/$CI_PROJECT_PATH/-/blob/$CI_COMMIT_REF_NAME/.gitlab-ci.yml"
//     (or $CI_CONFIG_PATH), invocation "$CI_JOB_URL".
func FromEnv(getenv func(string) string) CI {
	if getenv("GITHUB_ACTIONS") == "true" && getenv("GITHUB_WORKFLOW_REF") != "" {
		server := strings.TrimSuffix(or(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/")
		ci := CI{BuilderID: server + "/" + getenv("GITHUB_WORKFLOW_REF")}
		if run := getenv("GITHUB_RUN_ID"); run != "" && getenv("GITHUB_REPOSITORY") != "" {
			ci.InvocationID = server + "/" + getenv("GITHUB_REPOSITORY") + "/actions/runs/" + run + "/attempts/" + or(getenv("GITHUB_RUN_ATTEMPT"), "1")
		}
		return ci
	}
	if getenv("GITLAB_CI") == "true" && getenv("CI_SERVER_URL") != "" && getenv("CI_PROJECT_PATH") != "" {
		return CI{
			BuilderID: strings.TrimSuffix(getenv("CI_SERVER_URL"), "/") + "/" + getenv("CI_PROJECT_PATH") +
				"/-/blob/" + getenv("CI_COMMIT_REF_NAME") + "/" + or(getenv("CI_CONFIG_PATH"), ".gitlab-ci.yml"),
			InvocationID: getenv("CI_JOB_URL"),
		}
	}
	return CI{}
}

// BuilderID returns explicit when set, else the CI builder id, else
// LocalBuilderID.
func BuilderID(explicit string, getenv func(string) string) string {
	if explicit != "" {
		return explicit
	}
	if id := FromEnv(getenv).BuilderID; id != "" {
		return id
	}
	return LocalBuilderID
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
