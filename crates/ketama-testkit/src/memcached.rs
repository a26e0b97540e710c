//! Real memcached servers on 127.0.0.1, started on free ports and stopped by
//! PID when dropped; what they hold is read by `metadump.rs`.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::require_tool;

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
