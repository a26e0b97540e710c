//! Go peer programs (`peers/*.go`), built offline against Debian's Go
//! sources: GOPATH mode over `/usr/share/gocode`, no module download
//! (`GOPROXY=off`), the build cache in `target/go-cache`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Where Debian installs Go sources.
pub const GOPATH: &str = "/usr/share/gocode";

/// Builds `peers/<source>` into a scratch directory and returns the
/// program. `needs` are `(path under GOPATH/src, Debian package)`: a
/// missing one fails naming its package, as a missing `go` does.
pub fn build_peer(source: &str, needs: &[(&str, &str)]) -> PathBuf {
    crate::require_tool("go", "golang-go");
    for (path, package) in needs {
        assert!(
            Path::new(GOPATH).join("src").join(path).exists(),
            "{path} is not in {GOPATH}/src: run `make deps` (Debian package {package})"
        );
    }
    let name = source.trim_end_matches(".go");
    let program = crate::scratch_dir(name).join(name);
    let source = crate::peer_program(source);
    let output = crate::run_with_timeout(
        Command::new("go")
            .args(["build", "-o"])
            .arg(&program)
            .arg(&source)
            .env("GO111MODULE", "off")
            .env("GOPATH", GOPATH)
            .env("GOFLAGS", "")
            .env("GOPROXY", "off")
            .env("GOCACHE", crate::repo_root().join("target/go-cache")),
        Duration::from_secs(300),
    );
    assert!(
        output.status.success(),
        "go build {} failed: {}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    program
}
