//! Helpers shared by the integration tests: the built shared library, C
//! programs compiled against it, real memcached servers on loopback, and
//! external tools that must be installed (a missing one fails the test with
//! the package to install, never skips it).

#![allow(dead_code)]

pub mod c_header;
pub mod java;
mod metadump;
mod python;
pub mod random;
mod service_dir;
pub mod sysv;

#[allow(unused_imports)]
pub use service_dir::{ServiceDir, running_as_root};

#[allow(unused_imports)]
pub use python::{
    copy_tree, python_binding, python_command, python_wheelhouse, require_maturin_wheel,
};

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `ketama` command of this workspace build (crate `ketama-cli`), beside
/// the test's own target directory. `cargo test --workspace` (`make test`)
/// builds it before any test runs.
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
/// built by this `cargo test` run.
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
    require_tool("gcc", "gcc");
    let lib_dir = shared_library_dir();
    let out = scratch_dir("c").join(output_name);
    let mut cmd = Command::new("gcc");
    cmd.args([
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-g",
        "-D_GNU_SOURCE",
    ])
    .arg(format!("-I{}", repo_root().join("include").display()))
    .args(sources)
    .arg("-o")
    .arg(&out)
    .arg(format!("-L{}", lib_dir.display()))
    .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
    .arg("-lketama")
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

/// Runs the `ketama` CLI with `args` and `stdin` (bounded: 120 s).
pub fn ketama_cli<S: AsRef<std::ffi::OsStr>>(args: &[S], stdin: &[u8]) -> Output {
    run_with_input(
        Command::new(cli()).args(args),
        Some(stdin),
        Duration::from_secs(120),
    )
}

/// [`ketama_cli`] that must succeed; its standard output.
pub fn ketama_cli_ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = ketama_cli(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// [`run_with_timeout`] that also returns the command's own peak resident
/// set size in KiB. The command runs under `tests/c/peak_rss.c`, which forks
/// it and reads `ru_maxrss` from `wait4`: spawned straight from the test
/// process, the figure would start from the test process's own peak.
pub fn run_measuring_peak_rss(cmd: &mut Command, limit: Duration) -> (Output, u64) {
    static LAUNCHER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let launcher = LAUNCHER.get_or_init(|| {
        let source = repo_root().join("tests/c/peak_rss.c");
        compile_c(&[&source], "peak_rss", &[])
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

/// A free TCP port on 127.0.0.1, never the same one twice in this test
/// process (the kernel may hand a just-released port to a parallel test).
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    for _attempt in 0..1000 {
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("bind")
            .local_addr()
            .unwrap()
            .port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
    panic!("no unused loopback port after 1,000 tries");
}

/// A real memcached server on 127.0.0.1, stopped (by PID) when dropped.
pub struct Memcached {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    /// The command line after `-p PORT`, kept for [`Memcached::restart`].
    arguments: Vec<String>,
}

impl Memcached {
    /// Starts `memcached` on a free loopback port with `memory_mb` MiB and
    /// optional extra arguments; waits (at most 10 s) until it accepts connections.
    pub fn start_with(memory_mb: u32, extra: &[&str]) -> Memcached {
        require_tool("memcached", "memcached");
        let mut arguments: Vec<String> = ["-U", "0", "-m", &memory_mb.to_string()]
            .into_iter()
            .chain(extra.iter().copied())
            .map(String::from)
            .collect();
        // memcached refuses to run as root unless told which user to be.
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            arguments.extend(["-u".to_string(), "root".to_string()]);
        }
        for _attempt in 0..5 {
            let port = free_port();
            let child = spawn_memcached(port, &arguments);
            let mut server = Memcached {
                child,
                port,
                arguments: arguments.clone(),
            };
            if server.wait_until_accepting() {
                return server;
            }
            server.stop(); // port taken meanwhile: try another
        }
        panic!("memcached did not start on 127.0.0.1");
    }

    /// Waits (at most 10 s) until the server accepts connections; false if
    /// it exited first or never did.
    fn wait_until_accepting(&mut self) -> bool {
        let addr: SocketAddr = format!("127.0.0.1:{}", self.port).parse().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            // A stream connected to itself (the port free, chosen as the
            // ephemeral one) is not the server.
            if let Ok(stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(100)) {
                if stream.local_addr().ok() != Some(addr) {
                    // Another process's server on the port is not ours:
                    // only `STAT pid` equal to our child's proves it.
                    if let Some(pid) = server_pid(stream) {
                        return pid == self.child.id();
                    }
                }
            }
            if self.child.try_wait().ok().flatten().is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Kills the server with SIGKILL (it loses every item) and reaps it.
    pub fn kill9(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!(
                "memcached on port {} had already exited: {status}",
                self.port
            );
        }
        // SAFETY: our own child, not yet reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGKILL) };
        let _ = self.child.wait();
    }

    /// Starts the server again on the same port with the same arguments,
    /// empty, after [`Memcached::kill9`].
    pub fn restart(&mut self) {
        for _attempt in 0..50 {
            self.child = spawn_memcached(self.port, &self.arguments);
            if self.wait_until_accepting() {
                return;
            }
            self.stop();
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("memcached did not restart on port {}", self.port);
    }

    /// The server's `stats` counter `name` (e.g. `evictions`).
    pub fn stat(&self, name: &str) -> u64 {
        use std::io::{BufRead, BufReader, Write};
        let mut stream = TcpStream::connect(self.address()).expect("connect for stats");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(b"stats\r\n").unwrap();
        let prefix = format!("STAT {name} ");
        for line in BufReader::new(stream).lines() {
            let line = line.expect("stats reply");
            if let Some(value) = line.strip_prefix(&prefix) {
                return value.trim().parse().expect("a counter");
            }
            if line == "END" {
                break;
            }
        }
        panic!("memcached has no stat {name}");
    }

    /// Starts memcached with 64 MiB.
    pub fn start() -> Memcached {
        Memcached::start_with(64, &[])
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The server's PID.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `STAT pid` a memcached reports on `stream` (5 s bound), if any.
fn server_pid(mut stream: TcpStream) -> Option<u32> {
    use std::io::{BufRead, BufReader, Write};
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream.write_all(b"stats\r\n").ok()?;
    for line in BufReader::new(stream).lines() {
        let line = line.ok()?;
        if let Some(pid) = line.strip_prefix("STAT pid ") {
            return pid.trim().parse().ok();
        }
        if line == "END" {
            break;
        }
    }
    None
}

/// Spawns memcached on 127.0.0.1:`port` with `arguments`.
fn spawn_memcached(port: u16, arguments: &[String]) -> Child {
    Command::new("memcached")
        .args(["-l", "127.0.0.1", "-p", &port.to_string()])
        .args(arguments)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn memcached")
}

impl Drop for Memcached {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `ketama_roll` on `path`: the continuum, or `ketama_error()`'s text.
pub fn compat_roll(path: &Path) -> Result<ketama::compat::ketama_continuum, String> {
    use ketama::compat::{ketama_error, ketama_roll};
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let mut cont = std::ptr::null_mut();
    // SAFETY: valid out-pointer and NUL-terminated file name.
    if unsafe { ketama_roll(&mut cont, name.as_ptr() as *mut std::ffi::c_char) } == 1 {
        Ok(cont)
    } else {
        // SAFETY: ketama_error returns a valid NUL-terminated string.
        Err(unsafe { std::ffi::CStr::from_ptr(ketama_error()) }
            .to_string_lossy()
            .into_owned())
    }
}

/// Checks a bench program's output: exactly the rows `names`, in order, each
/// `NAME<TAB>SERVERS<TAB>NS_PER_KEY` with a positive number (the shape only;
/// timings belong to scripts/bench.sh, not to the tests).
pub fn assert_bench_rows(stdout: &str, servers: &str, names: &[&str]) {
    let rows: Vec<&str> = stdout
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            assert_eq!(fields[1], servers, "{line}");
            let ns: f64 = fields[2].parse().unwrap_or_else(|_| panic!("{line}"));
            assert!(ns > 0.0, "{line}");
            fields[0]
        })
        .collect();
    assert_eq!(rows, names, "{stdout}");
}

/// Checks the lines every binding example prints against real memcached
/// servers at `addresses`: keys read back from their servers, the set kept
/// by APPEND/ADD and compacted under CAS with nothing lost, and the
/// placement of `user:0..300` equal to `ketama find --servers`.
pub fn assert_example_output(stdout: &str, addresses: &[String]) {
    for line in [
        "read back 300/300 keys from their servers, 0 found elsewhere",
        "read 77 members from 229 records (152 redundant)\n",
        "after compaction: 77 members in 77 records, none lost\n",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
    let placed = run_with_timeout(
        Command::new(cli())
            .args(["find", "--servers", &addresses.join(",")])
            .args((0..300).map(|i| format!("user:{i}"))),
        Duration::from_secs(60),
    );
    let placed = String::from_utf8_lossy(&placed.stdout);
    let expected = addresses
        .iter()
        .map(|a| {
            format!(
                "{a}={}",
                placed
                    .lines()
                    .filter(|l| l.ends_with(&format!("\t{a}")))
                    .count()
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        stdout.contains(&format!("placed 300 keys: {expected}\n")),
        "{stdout}\nexpected {expected}"
    );
}
