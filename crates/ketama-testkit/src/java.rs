//! The Java binding compiled once per test process (the binding, its tests,
//! examples and bench, with `-Xlint:all -Werror`), and `java` commands run
//! against this build's library.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use super::{repo_root, require_tool, run_with_timeout, scratch_dir, shared_library_dir};

/// A jar from a Debian package; fails (never skips) naming the package when absent.
fn jar(name: &str, package: &str) -> String {
    let path = format!("/usr/share/java/{name}");
    assert!(
        Path::new(&path).exists(),
        "{path} is missing: install the Debian package {package}"
    );
    path
}

/// The classpath: the compiled binding, tests, examples and bench, then JNA,
/// spymemcached, JUnit 4.
pub fn java_classpath() -> &'static str {
    static CLASSPATH: OnceLock<String> = OnceLock::new();
    CLASSPATH.get_or_init(|| {
        require_tool("javac", "openjdk-17-jdk-headless");
        require_tool("java", "openjdk-17-jdk-headless");
        let jars = [
            jar("jna.jar", "libjna-java"),
            jar("spymemcached.jar", "libspymemcached-java"),
            jar("junit4.jar", "junit4"),
            jar("hamcrest-core.jar", "libhamcrest-java"),
        ]
        .join(":");
        let classes = scratch_dir("java").join("classes");
        let java = repo_root().join("bindings/java");
        let mut sources = Vec::new();
        for dir in ["src/main/java", "src/test/java", "examples", "bench"] {
            collect_java(&java.join(dir), &mut sources);
        }
        let out = run_with_timeout(
            Command::new("javac")
                .args(["-Xlint:all", "-Werror", "-encoding", "UTF-8", "-d"])
                .arg(&classes)
                .args(["-cp", &jars])
                .args(&sources),
            Duration::from_secs(300),
        );
        assert!(
            out.status.success(),
            "javac failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        format!("{}:{jars}", classes.display())
    })
}

fn collect_java(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir:?}: {e}")) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_java(&path, into);
        } else if path.extension().is_some_and(|e| e == "java") {
            into.push(path);
        }
    }
}

/// `java -cp CLASSPATH -Dketama.library=<this build's library> [props] CLASS`;
/// add the arguments and run it.
pub fn java_command(props: &[String], class: &str) -> Command {
    let mut cmd = Command::new("java");
    cmd.args(["-cp", java_classpath()])
        .arg(format!(
            "-Dketama.library={}",
            shared_library_dir().join("libketama.so").display()
        ))
        .arg("-Dnet.spy.log.LoggerImpl=net.spy.memcached.compat.log.SunLogger")
        .args(props)
        .arg(class);
    cmd
}
