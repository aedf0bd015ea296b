// Package stack resolves a stack of add-ons — the roots a consumer names in
// addons.yaml and their transitive dependencies — from version ranges to
// verified digests, and freezes the result in a canonical lock file
// (specs/stack.md section 4).
//
// Resolution needs two things from the world, behind the Registry
// interface: a repository's versions, and one artifact resolved once,
// verified under the policy scope of its own repository and read from its
// signed config blob. The package itself does no I/O beyond reading the
// stack file and reading and writing the lock.
//
// A lock is a committed file anyone with write access can edit, so it is
// not trusted either (specs/stack.md section 4.5): ReadLock accepts only a
// lock a resolution could have written, Steps and Check only one made from
// the stack file at hand, and every consumer of Steps binds each add-on's
// signed name, version and dependencies to its entry as it verifies it.
package stack
