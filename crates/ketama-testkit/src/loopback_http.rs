//! Loopback HTTP for the proxy peers (HAProxy, Varnish): backends that answer every request with their own port, a
//! proxy process started and stopped by PID, and a client that sends one
//! request per key through the proxy (keep-alive, pipelined, a few
//! connections at once) and reads back which backend answered.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long one read or write on a client connection may block.
const IO_TIMEOUT: Duration = Duration::from_secs(60);

/// Loopback HTTP backends, each answering `200` with an `X-Backend-Port`
/// header naming its own port; stopped when dropped.
pub struct Backends {
    /// The ports, in the order asked for.
    pub ports: Vec<u16>,
    stop: Arc<AtomicBool>,
}

impl Backends {
    /// Starts `n` backends on ports the kernel picks.
    pub fn start(n: usize) -> Backends {
        let stop = Arc::new(AtomicBool::new(false));
        let mut ports = Vec::with_capacity(n);
        for _ in 0..n {
            let listener = TcpListener::bind("127.0.0.1:0").expect("bind a backend");
            let port = listener.local_addr().unwrap().port();
            ports.push(port);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        std::thread::spawn(move || serve(stream, port));
                    }
                }
            });
        }
        Backends { ports, stop }
    }
}

impl Drop for Backends {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for &port in &self.ports {
            // Wake the accept loop so that it sees `stop`.
            let _ = TcpStream::connect(("127.0.0.1", port));
        }
    }
}

/// Answers the requests of one connection until the proxy closes it.
fn serve(stream: TcpStream, port: u16) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(300)));
    let mut writer = match stream.try_clone() {
        Ok(writer) => writer,
        Err(_) => return,
    };
    let reply = format!("HTTP/1.1 200 OK\r\nX-Backend-Port: {port}\r\nContent-Length: 0\r\n\r\n");
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0usize;
        let mut first = true;
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == b"\r\n" || line == b"\n" {
                break;
            }
            if !first {
                let text = String::from_utf8_lossy(&line).to_ascii_lowercase();
                if let Some(value) = text.strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            first = false;
        }
        if length > 0
            && std::io::copy(&mut (&mut reader).take(length as u64), &mut std::io::sink()).is_err()
        {
            return;
        }
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// A proxy process, stopped by PID when dropped (SIGTERM, then SIGKILL
/// after 5 s), with the log file to show when it fails.
pub struct Proxy {
    /// The process.
    pub child: Child,
    /// The port its clients connect to.
    pub port: u16,
    /// Its output, shown when it exits early.
    pub log: PathBuf,
}

impl Proxy {
    /// Waits (at most `limit`) until the proxy accepts connections on its
    /// port; panics with its log when it exits or does not listen in time.
    pub fn wait_listening(&mut self, what: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                let log = std::fs::read_to_string(&self.log).unwrap_or_default();
                panic!("{what} exited ({status}):\n{log}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        panic!(
            "{what} did not listen on 127.0.0.1:{} within {limit:?}:\n{log}",
            self.port
        );
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the PID of our own child, which has not been
        // reaped yet (it is reaped below), so the PID is still ours.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One answer of the proxy: the status code and the headers asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The values of the headers asked for, in the order asked (`None`
    /// when a header is missing).
    pub headers: Vec<Option<String>>,
}

/// Sends `requests` (each a whole HTTP/1.1 request) to 127.0.0.1:`port`
/// over `connections` keep-alive connections at once, `depth` requests
/// pipelined at a time on each, and returns each answer with the values
/// of `headers` (names in lower case), in request order.
pub fn ask(
    port: u16,
    requests: &[Vec<u8>],
    headers: &[&str],
    connections: usize,
    depth: usize,
) -> Vec<Answer> {
    let per_connection = requests.len().div_ceil(connections.max(1)).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = requests
            .chunks(per_connection)
            .map(|chunk| scope.spawn(move || ask_one_connection(port, chunk, headers, depth)))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a client thread panicked"))
            .collect()
    })
}

fn ask_one_connection(
    port: u16,
    requests: &[Vec<u8>],
    headers: &[&str],
    depth: usize,
) -> Vec<Answer> {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the proxy");
    stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    stream.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut answers = Vec::with_capacity(requests.len());
    let mut previous: &[u8] = b"";
    for batch in requests.chunks(depth.max(1)) {
        writer.write_all(&batch.concat()).expect("send requests");
        for request in batch {
            let answer = read_answer(&mut reader, headers).unwrap_or_else(|| {
                panic!(
                    "the proxy closed the connection instead of answering {:?} (after {:?})",
                    String::from_utf8_lossy(request),
                    String::from_utf8_lossy(previous)
                )
            });
            answers.push(answer);
            previous = request;
        }
    }
    let _ = writer.shutdown(Shutdown::Both);
    answers
}

/// The next answer; `None` when the connection was closed before it.
fn read_answer(reader: &mut BufReader<TcpStream>, wanted: &[&str]) -> Option<Answer> {
    let mut status_line = Vec::new();
    if reader
        .read_until(b'\n', &mut status_line)
        .expect("read a status line")
        == 0
    {
        return None;
    }
    let status_line = String::from_utf8_lossy(&status_line);
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {status_line:?}"));
    let mut headers = vec![None; wanted.len()];
    let mut length = 0usize;
    loop {
        let mut line = Vec::new();
        reader.read_until(b'\n', &mut line).expect("read a header");
        assert!(
            !line.is_empty(),
            "the proxy closed the connection mid-answer"
        );
        let line = String::from_utf8_lossy(&line).trim_end().to_string();
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim().to_ascii_lowercase();
        if name == "content-length" {
            length = value.trim().parse().unwrap_or(0);
        }
        if let Some(i) = wanted.iter().position(|w| *w == name) {
            headers[i] = Some(value.trim().to_string());
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).expect("read the body");
    Some(Answer { status, headers })
}
