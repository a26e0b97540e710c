//! PHP's web SAPIs for the PHP binding's tests: a private PHP-FPM master (Debian's php8.2-fpm with its own php.ini and
//! conf.d, plus the ini files a test adds) listening on a unix socket in a
//! scratch directory, real FastCGI requests through libfcgi's `cgi-fcgi`,
//! and php-cgi. A server is stopped by its PID when dropped; every wait is
//! bounded.

use std::ffi::OsString;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{ServiceDir, repo_root, require_tool, run_with_timeout, scratch_dir};

/// Debian's PHP-FPM binary (`/usr/sbin`, often not on a user's PATH).
pub const FPM: &str = "/usr/sbin/php-fpm8.2";
/// Debian's php-cgi binary.
pub const CGI: &str = "/usr/bin/php-cgi8.2";

/// Fails (never skips) unless php8.2-fpm, php8.2-cgi and libfcgi-bin are installed.
pub fn require_web_sapis() {
    for (program, package) in [(FPM, "php8.2-fpm"), (CGI, "php8.2-cgi")] {
        assert!(
            Path::new(program).exists(),
            "{program} is not installed: run `make deps` (Debian package {package})"
        );
    }
    require_tool("cgi-fcgi", "libfcgi-bin");
}

/// The ini snippet the php-ketama package ships
/// (`/etc/php/8.2/mods-available/ketama.ini`) with its paths moved from
/// `/usr/share/php/Ketama/` to `binding` (a directory holding preload.php
/// and ketama_ffi.h, with a trailing slash).
pub fn ketama_snippet(binding: &Path) -> String {
    let shipped = std::fs::read_to_string(repo_root().join("packaging/deb/php-ketama.ini"))
        .expect("packaging/deb/php-ketama.ini");
    assert!(shipped.contains("/usr/share/php/Ketama/preload.php"));
    shipped.replace("/usr/share/php/Ketama/", &format!("{}/", binding.display()))
}

/// One answer: the CGI headers, the body, and what came on FastCGI's (or
/// php-cgi's) standard error, where PHP writes its log lines.
#[derive(Debug)]
pub struct Response {
    pub headers: String,
    pub body: String,
    pub stderr: String,
}

impl Response {
    fn parse(stdout: &[u8], stderr: &[u8]) -> Response {
        let text = String::from_utf8_lossy(stdout).into_owned();
        let (headers, body) = text
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no CGI header block in {text:?}"));
        Response {
            headers: headers.to_string(),
            body: body.to_string(),
            stderr: String::from_utf8_lossy(stderr).into_owned(),
        }
    }

    /// The `Status:` header (PHP sends none for 200).
    pub fn status(&self) -> Option<&str> {
        self.headers
            .lines()
            .find_map(|l| l.strip_prefix("Status: "))
    }

    /// The body after its first line, `# pid=PID library=WHERE` (web_request.php).
    pub fn data(&self) -> &str {
        self.body.split_once('\n').map_or("", |(_, rest)| rest)
    }

    /// `(pid, library)` from the first line of web_request.php's answer.
    pub fn origin(&self) -> (u32, String) {
        let first = self.body.lines().next().unwrap_or("");
        let rest = first
            .strip_prefix("# pid=")
            .unwrap_or_else(|| panic!("not an answer of web_request.php: {self:?}"));
        let (pid, library) = rest.split_once(" library=").unwrap();
        (pid.parse().unwrap(), library.to_string())
    }

    /// Panics unless the script ran to its end without a PHP error.
    pub fn assert_ok(&self, what: &str) -> &Self {
        assert!(
            self.status().is_none() && !self.stderr.contains("PHP "),
            "{what}: failed:\n{}\n\n{}\n{}",
            self.headers,
            self.body,
            self.stderr
        );
        self
    }
}

/// The CGI environment of a GET request for `script` with `query`.
fn cgi_environment(script: &Path, query: &str) -> Vec<(&'static str, OsString)> {
    vec![
        ("PATH", "/usr/bin:/bin".into()),
        ("GATEWAY_INTERFACE", "CGI/1.1".into()),
        ("SERVER_PROTOCOL", "HTTP/1.1".into()),
        ("REQUEST_METHOD", "GET".into()),
        ("SCRIPT_FILENAME", script.as_os_str().to_owned()),
        ("SCRIPT_NAME", "/web_request.php".into()),
        ("REQUEST_URI", format!("/web_request.php?{query}").into()),
        ("QUERY_STRING", query.into()),
        ("SERVER_NAME", "localhost".into()),
        ("REMOTE_ADDR", "127.0.0.1".into()),
    ]
}

/// A query string of `name=value` pairs (values percent-encoded).
pub fn query(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(name, value)| {
            let encoded: String = value
                .bytes()
                .map(|b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'/' | b'~' => {
                        (b as char).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect();
            format!("{name}={encoded}")
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Writes `ini` (file name → content) into a fresh directory for
/// `PHP_INI_SCAN_DIR`, which is then `:DIR`: the SAPI's own conf.d first
/// (Debian's defaults), then these files.
fn scan_dir(name: &str, ini: &[(&str, String)]) -> PathBuf {
    let dir = scratch_dir(name).join("conf.d");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, content) in ini {
        std::fs::write(dir.join(file), content).unwrap();
    }
    dir
}

/// php-cgi (the CGI SAPI) answering one GET request, with Debian's
/// php.ini and conf.d for CGI plus `ini`; `env` adds to its environment.
pub fn php_cgi(
    script: &Path,
    query: &str,
    ini: &[(&str, String)],
    env: &[(&str, OsString)],
) -> Response {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let conf = scan_dir(&format!("php-cgi-{call}"), ini);
    let mut cmd = Command::new(CGI);
    cmd.env_clear()
        .envs(cgi_environment(script, query))
        // php-cgi refuses a request a web server did not redirect (cgi.force_redirect).
        .env("REDIRECT_STATUS", "200")
        .env("PHP_INI_SCAN_DIR", format!(":{}", conf.display()))
        .envs(env.iter().map(|(k, v)| (*k, v)));
    let out = run_with_timeout(&mut cmd, Duration::from_secs(120));
    Response::parse(&out.stdout, &out.stderr)
}

/// A private PHP-FPM: one pool of `workers` static workers on a unix socket.
pub struct Fpm {
    child: Child,
    dir: PathBuf,
    pub socket: PathBuf,
}

impl Fpm {
    /// Starts `php-fpm8.2 --nodaemonize` with Debian's FPM php.ini and
    /// conf.d plus `ini`, `env` added to the master's environment (the
    /// workers' PHP environment is cleared, FPM's default), and waits (at
    /// most 30 s) until the socket accepts connections. Run as root, the
    /// pool runs as www-data, like Debian's pool `www`.
    pub fn start(
        name: &str,
        workers: u32,
        ini: &[(&str, String)],
        env: &[(&str, OsString)],
    ) -> Fpm {
        require_web_sapis();
        let dir = scratch_dir(name);
        let conf = scan_dir(name, ini);
        let socket = dir.join("fpm.sock");
        assert!(
            socket.as_os_str().len() < 100,
            "{socket:?} is too long for a unix socket address"
        );
        let _ = std::fs::remove_file(&socket);
        let user = if crate::running_as_root() {
            "user = www-data\ngroup = www-data\n"
        } else {
            ""
        };
        let config = dir.join("php-fpm.conf");
        std::fs::write(
            &config,
            format!(
                "[global]\npid = {dir}/fpm.pid\nerror_log = {dir}/fpm.log\ndaemonize = no\n\
                 [ketama]\nlisten = {socket}\nlisten.mode = 0600\n{user}\
                 pm = static\npm.max_children = {workers}\npm.status_path = /fpm-status\n",
                dir = dir.display(),
                socket = socket.display(),
            ),
        )
        .unwrap();
        let child = Command::new(FPM)
            .args(["--nodaemonize", "--fpm-config"])
            .arg(&config)
            .env("PHP_INI_SCAN_DIR", format!(":{}", conf.display()))
            .envs(env.iter().map(|(k, v)| (*k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn php-fpm8.2");
        let mut fpm = Fpm { child, dir, socket };
        let start = Instant::now();
        while UnixStream::connect(&fpm.socket).is_err() {
            if let Ok(Some(status)) = fpm.child.try_wait() {
                panic!("php-fpm exited ({status}) before listening:\n{}", fpm.log());
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "php-fpm did not listen within 30 s:\n{}",
                fpm.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        fpm
    }

    /// The master's PID.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// FPM's own log (startup messages, warnings).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("fpm.log")).unwrap_or_default()
    }

    /// One FastCGI request for `script` with `query`, sent by `cgi-fcgi`.
    pub fn request(&self, script: &Path, query: &str) -> Response {
        let out = run_with_timeout(
            Command::new("cgi-fcgi")
                .args(["-bind", "-connect"])
                .arg(&self.socket)
                .env_clear()
                .envs(cgi_environment(script, query)),
            Duration::from_secs(120),
        );
        assert!(
            out.status.success(),
            "cgi-fcgi failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        Response::parse(&out.stdout, &out.stderr)
    }

    /// FPM's status page for the pool (`pm.status_path`), as `name: value` lines.
    pub fn status(&self) -> String {
        let out = run_with_timeout(
            Command::new("cgi-fcgi")
                .args(["-bind", "-connect"])
                .arg(&self.socket)
                .env_clear()
                .envs([
                    ("REQUEST_METHOD", "GET"),
                    ("SCRIPT_NAME", "/fpm-status"),
                    ("SCRIPT_FILENAME", "/fpm-status"),
                    ("QUERY_STRING", ""),
                ]),
            Duration::from_secs(60),
        );
        Response::parse(&out.stdout, &out.stderr).body
    }

    /// The PIDs of the master's children (its workers), from /proc.
    pub fn workers(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| parent_of(*pid) == Some(self.pid()))
            .collect();
        pids.sort_unstable();
        pids
    }
}

/// The parent PID of `pid` (field 4 of /proc/PID/stat), if it still runs.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let after = &stat[stat.rfind(')')? + 2..];
    after.split(' ').nth(1)?.parse().ok()
}

impl Drop for Fpm {
    /// SIGTERM to the master (it stops its workers), SIGKILL to the master
    /// and its workers after 10 s.
    fn drop(&mut self) {
        let master = self.pid() as libc::pid_t;
        // SAFETY: our own child, not yet reaped.
        unsafe { libc::kill(master, libc::SIGTERM) };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        for worker in self.workers() {
            // SAFETY: a child of our own php-fpm master.
            unsafe { libc::kill(worker as libc::pid_t, libc::SIGKILL) };
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The libketama files mapped into process `pid`: (device:inode, path) pairs.
pub fn mapped_libketama(pid: u32) -> Vec<(String, String)> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default();
    let mut files: Vec<(String, String)> = maps
        .lines()
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            (fields.len() >= 6 && fields[5].contains("libketama")).then(|| {
                (
                    format!("{}:{}", fields[3], fields[4]),
                    fields[5].to_string(),
                )
            })
        })
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Server files, keys and a set value the web-SAPI tests ask about, in a
/// [`ServiceDir`] every PHP worker may read.
pub struct Data {
    pub servers: PathBuf,
    pub keys: PathBuf,
    pub compat_keys: PathBuf,
    pub missing: PathBuf,
    pub value: PathBuf,
    pub members: PathBuf,
    key_list: Vec<String>,
    member_list: Vec<String>,
    /// Where the files are (kept while the data lives).
    _dir: ServiceDir,
}

/// `ketama ARGS` of this build with `stdin`, which must succeed; its output.
fn cli(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = crate::run_with_input(
        Command::new(crate::cli()).args(args),
        Some(stdin),
        Duration::from_secs(120),
    );
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).expect("UTF-8")
}

impl Data {
    pub fn new(name: &str) -> Data {
        let web = ServiceDir::new(name);
        let dir = web.path().to_path_buf();
        let servers = dir.join("servers");
        let mut list = String::new();
        for i in 0..7 {
            list.push_str(&format!(
                "10.0.{i}.{}:11211\t{}\n",
                10 + i,
                100 + 50 * (i % 3)
            ));
        }
        std::fs::write(&servers, list).unwrap();
        // Keys: ASCII, UTF-8 and one over 255 bytes (php_ketama's limit, not this library's).
        let mut key_list: Vec<String> = (0..400).map(|i| format!("user:{i}")).collect();
        key_list.extend((0..100).map(|i| format!("ключ:{i}:é")));
        key_list.push(format!("long:{}", "x".repeat(300)));
        let keys = dir.join("keys");
        std::fs::write(&keys, key_list.join("\n") + "\n").unwrap();
        let compat_keys = dir.join("compat-keys");
        std::fs::write(&compat_keys, key_list[..200].join("\n") + "\n").unwrap();
        // A set value as memcached holds it after APPENDs: adds, removes, re-adds, in both encodings.
        let mut value = cli(
            &["set", "encode", "add", "alice", "bob", "carol", "dave"],
            b"",
        );
        value.extend(cli(&["set", "encode", "remove", "bob", "zoë"], b""));
        value.extend(cli(&["set", "encode", "add", "erin", "alice", "ключ"], b""));
        let value_path = dir.join("value");
        std::fs::write(&value_path, &value).unwrap();
        let member_list: Vec<String> = ["frank", "zoë", "ключ", "alice"].map(String::from).into();
        let members = dir.join("members");
        std::fs::write(&members, member_list.join("\n") + "\n").unwrap();
        web.open_to_all();
        Data {
            _dir: web,
            servers,
            keys,
            compat_keys,
            missing: dir.join("no-such.servers"),
            value: value_path,
            members,
            key_list,
            member_list,
        }
    }

    /// The keys of `self.keys`, in order.
    pub fn keys(&self) -> &[String] {
        &self.key_list
    }

    /// `ketama find` (KEY<TAB>SERVER lines) for `keys`, with `extra` options.
    pub fn cli_find(&self, extra: &[&str], keys: &[String]) -> String {
        let mut args = vec!["find"];
        args.extend_from_slice(extra);
        args.push(self.servers.to_str().unwrap());
        text(cli(&args, (keys.join("\n") + "\n").as_bytes()))
    }
}

/// Asks `ask` (one request: a query string in, web_request.php's answer out)
/// about `data` and compares every answer with the `ketama` CLI's and the C
/// library's: Ring lookups in two flavours, the batch lookups and the multi-GET
/// plan, the set codec, and the php_ketama functions. Every answer must come
/// through `library` (Ketama\Library::path()). Returns how many requests ran.
pub fn check_answers(
    ask: &dyn Fn(&str) -> Response,
    data: &Data,
    library: &str,
    who: &str,
) -> usize {
    let servers = data.servers.to_str().unwrap();
    let keys = data.keys.to_str().unwrap();
    let mut requests = 0;
    let mut get = |pairs: &[(&str, &str)], what: &str| -> String {
        requests += 1;
        let response = ask(&query(pairs));
        response.assert_ok(&format!("{who}: {what}"));
        assert_eq!(
            response.origin().1,
            library,
            "{who}: {what}: the library used"
        );
        response.data().to_string()
    };
    // Ring::server, one call per key, in the library's own flavour and php-memcached's.
    for flavour in ["libketama", "libmemcached"] {
        let answer = get(
            &[
                ("case", "find"),
                ("servers", servers),
                ("keys", keys),
                ("flavour", flavour),
            ],
            flavour,
        );
        let expected = data.cli_find(&["--flavor", flavour], data.keys());
        assert!(
            answer == expected,
            "{who}: Ring::server ({flavour}) differs from `ketama find`"
        );
    }
    // Ring::serversFor (one native call) and groupKeys (the multi-GET plan).
    let answer = get(
        &[("case", "batch"), ("servers", servers), ("keys", keys)],
        "batch",
    );
    let (found, groups): (Vec<&str>, Vec<&str>) =
        answer.lines().partition(|l| !l.starts_with("= "));
    assert!(
        found.join("\n") + "\n" == data.cli_find(&[], data.keys()),
        "{who}: Ring::serversFor differs from `ketama find`"
    );
    let mut groups: Vec<&str> = groups.iter().map(|l| &l[2..]).collect();
    groups.sort_unstable();
    let plan = data.cli_find(&["--group-by-server"], data.keys());
    let mut expected: Vec<&str> = plan.lines().collect();
    expected.sort_unstable();
    assert_eq!(
        groups, expected,
        "{who}: Ring::groupKeys vs `ketama find --group-by-server`"
    );
    // The set codec.
    let answer = get(
        &[
            ("case", "set"),
            ("value", data.value.to_str().unwrap()),
            ("members", data.members.to_str().unwrap()),
        ],
        "set",
    );
    let answer: serde_json::Value = serde_json::from_str(&answer).expect("set answer is JSON");
    let value = std::fs::read(&data.value).unwrap();
    let decoded: serde_json::Value =
        serde_json::from_slice(&cli(&["set", "decode", "--json"], &value)).unwrap();
    assert_eq!(
        answer["decoded"], decoded,
        "{who}: Set::decode vs `ketama set decode --json`"
    );
    let hex = |bytes: Vec<u8>| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_eq!(
        answer["compacted"],
        hex(cli(&["set", "compact"], &value)),
        "{who}: compacted"
    );
    let members: Vec<&str> = data.member_list.iter().map(String::as_str).collect();
    for (field, args) in [
        ("add_t1", vec!["set", "encode", "add", "--"]),
        ("remove_t1", vec!["set", "encode", "remove", "--"]),
        ("add_b1", vec!["set", "encode", "--binary", "add", "--"]),
    ] {
        let args: Vec<&str> = args.into_iter().chain(members.iter().copied()).collect();
        assert_eq!(
            answer[field],
            hex(cli(&args, b"")),
            "{who}: Set::encode {field}"
        );
    }
    // The php_ketama functions: the original's reader, its points, its error.
    let answer = get(
        &[
            ("case", "compat"),
            ("servers", servers),
            ("keys", data.compat_keys.to_str().unwrap()),
            ("missing", data.missing.to_str().unwrap()),
        ],
        "compat",
    );
    let json = text(cli(
        &["find", "--json", "--libketama-parser", servers],
        (data.keys()[..200].join("\n") + "\n").as_bytes(),
    ));
    let mut expected = String::new();
    for line in json.lines() {
        let found: serde_json::Value = serde_json::from_str(line).unwrap();
        expected.push_str(&format!(
            "{}\t{}\t{}\n",
            found["key"].as_str().unwrap(),
            found["server"].as_str().unwrap(),
            found["point"]
        ));
    }
    let error = match crate::compat_roll_error(&data.missing) {
        Err(message) => message,
        Ok(()) => panic!("ketama_roll of a missing file succeeded"),
    };
    expected.push_str(&format!(
        "error: unable to create Ketama continuum: {error}\nfalse\nketama_error: {error}\n"
    ));
    assert!(
        answer == expected,
        "{who}: php_ketama functions differ from the C library:\n{answer}"
    );
    requests
}
