//! The integration tests' shared helpers, one crate for the tests of every
//! package of the workspace (`ketama-core`, `ketama-cli` and the C ABI's
//! `ketama`): paths of the checkout and of this build's products, scratch
//! directories, external tools that must be installed (a missing one fails
//! the test with the Debian package to install, never skips it), commands
//! run with a time limit, C programs compiled against the built library,
//! real memcached servers on loopback, the peer programs with their runners
//! and the comparison harness of the peer suites, and the bindings'
//! runtimes (Java, Python, PHP-FPM).

pub mod envoy_published;
mod examples;
pub mod go;
pub mod harness;
pub mod java;
pub mod jump_peers;
pub mod loopback_http;
mod memcached;
mod metadump;
pub mod oracle_lists;
pub mod peer_programs;
pub mod peers;
pub mod php_fpm;
pub mod pypi_peers;
mod python;
pub mod random;
pub mod redis_clients;
pub mod redis_cluster;
pub mod rust_memcache;
mod service_dir;
pub mod set_clients;
pub mod sysv;

pub use examples::{assert_bench_rows, assert_example_output};
pub use memcached::{Memcached, free_port};
pub use python::{
    copy_tree, python_binding, python_command, python_wheelhouse, require_maturin_wheel,
};
pub use service_dir::{ServiceDir, running_as_root};

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The repository root (this crate is `crates/ketama-testkit` in it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/ketama-testkit lies two levels down")
        .to_path_buf()
}

/// A peer program of `crates/ketama-testkit/peers` (`dalli_peer.rb`,
/// `SpyPeer.java`, …): the real clients' own code asked about placements.
pub fn peer_program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("peers")
        .join(name)
}

/// The script that drives the original libketama C code (the PyPI
/// `ketama==0.1.1` module) through ctypes: the oracle.
pub fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/libketama_oracle.py")
}

/// The `ketama` command of this workspace build (crate `ketama-cli`), beside
/// the test's own target directory, for the tests that compare the C ABI
/// and the bindings with it (the CLI's own tests run the binary cargo built
/// for them). `cargo test --workspace` (`make test`) builds it, for the
/// CLI's tests, before any test runs.
pub fn cli() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target profile dir");
    let cli = profile_dir.join("ketama");
    assert!(
        cli.exists(),
        "{} does not exist: build the CLI with `cargo build -p ketama-cli` (or run `make test`)",
        cli.display()
    );
    cli
}

/// A scratch directory unique to this test process (under target/).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = repo_root()
        .join("target")
        .join("test-scratch")
        .join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Panics with the Debian package to install when `tool` is not on PATH.
pub fn require_tool(tool: &str, package: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(
        found,
        "`{tool}` is not installed: run `make deps` (Debian package {package})"
    );
}

/// Panics, with pkg-config's own words on what is missing, unless
/// `pkg-config --exists libmemcached` succeeds (its `.pc` file requires
/// `libsasl2.pc` and `libcrypto.pc` too, from libsasl2-dev and libssl-dev).
pub fn require_libmemcached() {
    require_tool("pkg-config", "pkg-config");
    let probe = Command::new("pkg-config")
        .args(["--exists", "--print-errors", "libmemcached"])
        .output()
        .expect("pkg-config");
    assert!(
        probe.status.success(),
        "libmemcached is not usable through pkg-config: run `make deps` (Debian packages \
         libmemcached-dev, libsasl2-dev, libssl-dev); pkg-config says:\n{}",
        String::from_utf8_lossy(&probe.stderr)
    );
}

/// Directory holding `libketama.so` and a `libketama.so.1` link to it, as
/// built by this `cargo test` run of the C ABI's package (`ketama`).
pub fn shared_library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let deps = exe.parent().expect("deps dir");
        let candidates = [
            deps.join("libketama.so"),
            deps.parent().unwrap().join("libketama.so"),
        ];
        let library = candidates
            .iter()
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("libketama.so not found in {candidates:?}"))
            .clone();
        let dir = scratch_dir("lib");
        let copy = dir.join("libketama.so");
        std::fs::copy(&library, &copy).expect("copy libketama.so");
        let link = dir.join("libketama.so.1");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("libketama.so", &link).expect("symlink libketama.so.1");
        dir
    })
}

/// What the built library's original API says of the server file `path`:
/// `ketama_roll` on it, and `ketama_error()` when that fails. The library is
/// loaded at run time from [`shared_library_dir`], as the bindings load it.
pub fn compat_roll_error(path: &Path) -> Result<(), String> {
    type Roll = unsafe extern "C" fn(*mut *mut c_void, *mut c_char) -> c_int;
    type Smoke = unsafe extern "C" fn(*mut c_void);
    type LastError = unsafe extern "C" fn() -> *const c_char;
    let library = shared_library_dir().join("libketama.so.1");
    let name = CString::new(library.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; the handle is checked before use and
    // kept open (the library stays loaded for the process).
    let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    assert!(!handle.is_null(), "dlopen {library:?} failed");
    let symbol = |symbol: &CStr| {
        // SAFETY: a handle dlopen returned and a NUL-terminated name.
        let found = unsafe { libc::dlsym(handle, symbol.as_ptr()) };
        assert!(!found.is_null(), "{library:?} exports no {symbol:?}");
        found
    };
    // SAFETY: these are the C ABI's functions of these prototypes
    // (include/ketama.h: ketama_roll, ketama_smoke, ketama_error).
    let (roll, smoke, last_error) = unsafe {
        (
            std::mem::transmute::<*mut c_void, Roll>(symbol(c"ketama_roll")),
            std::mem::transmute::<*mut c_void, Smoke>(symbol(c"ketama_smoke")),
            std::mem::transmute::<*mut c_void, LastError>(symbol(c"ketama_error")),
        )
    };
    let file = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let mut continuum = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and a NUL-terminated file name.
    if unsafe { roll(&mut continuum, file.as_ptr().cast_mut()) } == 1 {
        // SAFETY: the continuum ketama_roll stored, freed once.
        unsafe { smoke(continuum) };
        return Ok(());
    }
    // SAFETY: ketama_error returns a NUL-terminated string of this thread.
    Err(unsafe { CStr::from_ptr(last_error()) }
        .to_string_lossy()
        .into_owned())
}

/// The sanitizers the C test programs are built with: the comma-separated
/// `-fsanitize=` list in `KETAMA_C_SANITIZE` (`make test-sanitizers` sets
/// `address,undefined`), or none.
pub fn c_sanitizers() -> Option<String> {
    std::env::var("KETAMA_C_SANITIZE")
        .ok()
        .filter(|list| !list.is_empty())
}

/// Compiles C sources against `include/ketama.h` and the built shared
/// library; returns the executable. `extra` is appended to the gcc command
/// (e.g. `-lmemcached`). Under [`c_sanitizers`] the program is instrumented,
/// and any report ends it with a failing status.
pub fn compile_c(sources: &[&Path], output_name: &str, extra: &[&str]) -> PathBuf {
    let lib_dir = shared_library_dir();
    let mut linked = vec![
        format!("-I{}", repo_root().join("include").display()),
        format!("-L{}", lib_dir.display()),
        format!("-Wl,-rpath,{}", lib_dir.display()),
        "-lketama".to_string(),
    ];
    linked.extend(extra.iter().map(|arg| arg.to_string()));
    let linked: Vec<&str> = linked.iter().map(String::as_str).collect();
    compile_program(sources, output_name, &linked)
}

/// Compiles a C program with the flags of [`compile_c`] but without this
/// library (a peer's own program); `extra` is appended to the gcc command.
/// Tests compiling the same program at once each get a whole executable:
/// gcc writes a file of its own, renamed into place.
pub fn compile_program(sources: &[&Path], output_name: &str, extra: &[&str]) -> PathBuf {
    static BUILDS: AtomicUsize = AtomicUsize::new(0);
    require_tool("gcc", "gcc");
    let out = scratch_dir("c").join(output_name);
    let build = BUILDS.fetch_add(1, Ordering::Relaxed);
    let written = out.with_file_name(format!("{output_name}.build-{build}"));
    let mut cmd = Command::new("gcc");
    cmd.args([
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-g",
        "-D_GNU_SOURCE",
    ])
    .args(sources)
    .arg("-o")
    .arg(&written)
    .args(extra);
    if let Some(list) = c_sanitizers() {
        cmd.args([
            format!("-fsanitize={list}"),
            "-fno-sanitize-recover=all".into(),
            "-fno-omit-frame-pointer".into(),
        ]);
    }
    let result = cmd.output().expect("run gcc");
    assert!(
        result.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    std::fs::rename(&written, &out).expect("move the program into place");
    out
}

/// Runs a command to completion with a time limit, killing it when exceeded.
pub fn run_with_timeout(cmd: &mut Command, limit: Duration) -> Output {
    run_with_input(cmd, None, limit)
}

/// [`run_with_timeout`], writing `input` (when given) to the command's
/// standard input and then closing it.
pub fn run_with_input(cmd: &mut Command, input: Option<&[u8]>, limit: Duration) -> Output {
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let writer = input.map(|input| {
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        // A command that exits without reading all of it closes the pipe:
        // that is its answer, not a test failure.
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(&input);
        })
    });
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || read_all(stdout));
    let err_reader = std::thread::spawn(move || read_all(stderr));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if let Some(writer) = writer {
        writer.join().unwrap();
    }
    Output {
        status,
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

/// [`run_with_timeout`] that also returns the command's own peak resident
/// set size in KiB. The command runs under `c/peak_rss.c` of this crate, which forks
/// it and reads `ru_maxrss` from `wait4`: spawned straight from the test
/// process, the figure would start from the test process's own peak.
pub fn run_measuring_peak_rss(cmd: &mut Command, limit: Duration) -> (Output, u64) {
    static LAUNCHER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let launcher = LAUNCHER.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("c/peak_rss.c");
        compile_program(&[&source], "peak_rss", &[])
    });
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let figure = scratch_dir("peak-rss").join(format!("run-{run}"));
    let mut wrapped = Command::new(launcher);
    wrapped
        .arg(&figure)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (name, value) in cmd.get_envs() {
        match value {
            Some(value) => wrapped.env(name, value),
            None => wrapped.env_remove(name),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        wrapped.current_dir(dir);
    }
    let output = run_with_timeout(&mut wrapped, limit);
    let peak_kib = std::fs::read_to_string(&figure)
        .unwrap_or_else(|e| panic!("{cmd:?}: no peak RSS figure ({e}); {output:?}"))
        .trim()
        .parse()
        .expect("peak_rss writes a number");
    (output, peak_kib)
}

fn read_all(mut r: impl std::io::Read) -> Vec<u8> {
    let mut buf = Vec::new();
    let _ = r.read_to_end(&mut buf);
    buf
}

/// Runs `program` under valgrind and asserts zero errors and zero leaks.
/// Built with [`c_sanitizers`], the program checks itself instead
/// (valgrind cannot run it): it must exit 0 with no sanitizer report.
pub fn assert_valgrind_clean(program: &Path, args: &[&str], limit: Duration) -> Output {
    if c_sanitizers().is_some() {
        let output = run_with_timeout(
            Command::new(program)
                .args(args)
                .env(
                    "ASAN_OPTIONS",
                    "detect_leaks=1:abort_on_error=0:exitcode=97",
                )
                .env("UBSAN_OPTIONS", "print_stacktrace=1:exitcode=97"),
            limit,
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success()
                && !stderr.contains("Sanitizer")
                && !stderr.contains("runtime error"),
            "sanitizers reported errors for {program:?} (exit {:?}):\n{stderr}",
            output.status.code()
        );
        return output;
    }
    require_tool("valgrind", "valgrind");
    let output = run_with_timeout(
        Command::new("valgrind")
            .args([
                "--error-exitcode=97",
                "--leak-check=full",
                "--show-leak-kinds=definite,indirect,possible",
            ])
            .args([
                "--errors-for-leak-kinds=definite,indirect,possible",
                "--quiet",
            ])
            .arg(program)
            .args(args),
        limit,
    );
    assert!(
        output.status.success(),
        "valgrind reported errors for {program:?} (exit {:?}):\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}
