#pragma once
// The commit this binary was built from, generated at every build (not at
// configure time, which goes stale) by bench/runner/git_commit.cmake.

namespace pdbench::runner {

const char* build_git_commit();  // 12 hex digits of HEAD, or "unknown" outside a git checkout
bool build_git_dirty();          // tracked files differed from HEAD when it was built

}  // namespace pdbench::runner
