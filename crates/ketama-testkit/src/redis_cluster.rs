//! Real Redis Clusters on loopback for the `redis-cluster` peer test:
//! `redis-server` nodes in cluster mode (on 127.0.0.x addresses, so that
//! `redis-cli --cluster create` sees several hosts), made a cluster by
//! `redis-cli --cluster create` or by explicit slot assignments, and asked
//! over RESP which slot and which master each key has (`CLUSTER KEYSLOT`,
//! and a `GET` answered at home or redirected with `-MOVED`/`-ASK`).
//! Nodes are stopped by PID when the cluster is dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::memcached::free_port;
use crate::{require_tool, run_with_timeout, scratch_dir};

/// A RESP reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `+...`
    Status(String),
    /// `-...`
    Error(String),
    /// `:N`
    Integer(i64),
    /// `$N` (`None`: the nil bulk string).
    Bulk(Option<Vec<u8>>),
    /// `*N` (`None`: the nil array).
    Array(Option<Vec<Reply>>),
}

/// A RESP connection to one node.
pub struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Connection {
    /// Connects to `ip:port` (10 s read bound).
    pub fn open(ip: &str, port: u16) -> std::io::Result<Connection> {
        let stream = TcpStream::connect((ip, port))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        Ok(Connection {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Sends every command, 256 at a time, and reads their replies in order.
    pub fn pipeline(&mut self, commands: &[Vec<Vec<u8>>]) -> Vec<Reply> {
        let mut replies = Vec::with_capacity(commands.len());
        for chunk in commands.chunks(256) {
            let mut out = Vec::new();
            for args in chunk {
                out.extend(format!("*{}\r\n", args.len()).bytes());
                for arg in args {
                    out.extend(format!("${}\r\n", arg.len()).bytes());
                    out.extend_from_slice(arg);
                    out.extend_from_slice(b"\r\n");
                }
            }
            self.writer.write_all(&out).expect("send to redis-server");
            for _ in chunk {
                replies.push(self.read_reply());
            }
        }
        replies
    }

    /// One command's reply.
    pub fn call(&mut self, args: &[&[u8]]) -> Reply {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
        self.pipeline(&[args]).remove(0)
    }

    fn read_line(&mut self) -> String {
        let mut line = Vec::new();
        self.reader
            .read_until(b'\n', &mut line)
            .expect("a reply from redis-server");
        assert!(line.ends_with(b"\r\n"), "a cut RESP line: {line:?}");
        line.truncate(line.len() - 2);
        String::from_utf8(line).expect("a RESP header line is text")
    }

    fn read_reply(&mut self) -> Reply {
        let line = self.read_line();
        let (kind, rest) = line.split_at(1);
        let number = || rest.parse::<i64>().expect("a RESP length");
        match kind {
            "+" => Reply::Status(rest.into()),
            "-" => Reply::Error(rest.into()),
            ":" => Reply::Integer(number()),
            "$" if number() < 0 => Reply::Bulk(None),
            "$" => {
                let mut data = vec![0; number() as usize + 2];
                self.reader.read_exact(&mut data).expect("a bulk string");
                data.truncate(data.len() - 2);
                Reply::Bulk(Some(data))
            }
            "*" if number() < 0 => Reply::Array(None),
            "*" => Reply::Array(Some((0..number()).map(|_| self.read_reply()).collect())),
            _ => panic!("not a RESP reply: {line:?}"),
        }
    }
}

/// One `redis-server --cluster-enabled yes` on `ip:port`.
pub struct Node {
    child: Child,
    /// Its loopback address (`127.0.0.x`).
    pub ip: String,
    /// Its client port.
    pub port: u16,
    /// Its cluster bus port.
    pub bus: u16,
}

impl Node {
    /// `ip:port`.
    pub fn address(&self) -> String {
        format!("{}:{}", self.ip, self.port)
    }

    /// A new connection to the node.
    pub fn connect(&self) -> Connection {
        Connection::open(&self.ip, self.port).expect("connect to redis-server")
    }

    /// `CLUSTER MYID`.
    pub fn id(&self) -> String {
        match self.connect().call(&[b"CLUSTER", b"MYID"]) {
            Reply::Bulk(Some(id)) => String::from_utf8(id).unwrap(),
            other => panic!("CLUSTER MYID answered {other:?}"),
        }
    }

    /// The node's `CLUSTER NODES` text.
    pub fn cluster_nodes(&self) -> String {
        match self.connect().call(&[b"CLUSTER", b"NODES"]) {
            Reply::Bulk(Some(text)) => String::from_utf8(text).unwrap(),
            other => panic!("CLUSTER NODES answered {other:?}"),
        }
    }
}

/// Empty cluster-mode nodes, then a cluster of them.
pub struct Cluster {
    /// The nodes, in the order they were asked for.
    pub nodes: Vec<Node>,
    dir: PathBuf,
}

impl Cluster {
    /// Starts one empty node per entry of `ips` (each a `127.0.0.x`), on
    /// free ports; waits until every one answers `PING`.
    pub fn start(name: &str, ips: &[&str]) -> Cluster {
        require_tool("redis-server", "redis-server");
        require_tool("redis-cli", "redis-tools");
        let dir = scratch_dir(&format!("redis-cluster-{name}"));
        let nodes = ips
            .iter()
            .map(|ip| {
                let (port, bus) = (free_port(), free_port());
                let child = Command::new("redis-server")
                    .args(["--port", &port.to_string(), "--bind", ip])
                    .args(["--bind-source-addr", ip, "--cluster-announce-ip", ip])
                    .args([
                        "--cluster-enabled",
                        "yes",
                        "--cluster-port",
                        &bus.to_string(),
                    ])
                    .arg("--cluster-config-file")
                    .arg(dir.join(format!("nodes-{ip}-{port}.conf")))
                    .arg("--dir")
                    .arg(&dir)
                    .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"])
                    .args(["--loglevel", "warning", "--cluster-node-timeout", "15000"])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("spawn redis-server");
                Node {
                    child,
                    ip: ip.to_string(),
                    port,
                    bus,
                }
            })
            .collect();
        let mut cluster = Cluster { nodes, dir };
        for node in &mut cluster.nodes {
            wait_for_pong(node);
        }
        cluster
    }

    /// Runs `redis-cli --cluster create` over the nodes in order (every node
    /// a master) and waits until the cluster serves every slot; returns what
    /// redis-cli printed.
    pub fn create(&self) -> String {
        let addresses: Vec<String> = self.nodes.iter().map(Node::address).collect();
        let out = run_with_timeout(
            Command::new("redis-cli")
                .args(["--cluster", "create"])
                .args(&addresses)
                .args(["--cluster-replicas", "0", "--cluster-yes"])
                .env("TERM", "dumb"),
            Duration::from_secs(300),
        );
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success() && said.contains("All 16384 slots covered"),
            "redis-cli --cluster create failed: {said}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.wait_until_ok();
        said
    }

    /// Makes a cluster by hand: node `i` serves the ranges `slots[i]`
    /// (`CLUSTER ADDSLOTSRANGE`, config epoch `i + 1`), every node meets
    /// the first; waits until the cluster serves every slot.
    pub fn assign(&self, slots: &[Vec<(u16, u16)>]) {
        for (i, (node, ranges)) in self.nodes.iter().zip(slots).enumerate() {
            let mut c = node.connect();
            let epoch = (i + 1).to_string();
            let set = c.call(&[b"CLUSTER", b"SET-CONFIG-EPOCH", epoch.as_bytes()]);
            assert_eq!(set, Reply::Status("OK".into()), "SET-CONFIG-EPOCH");
            let mut args: Vec<Vec<u8>> = vec![b"CLUSTER".to_vec(), b"ADDSLOTSRANGE".to_vec()];
            for (first, last) in ranges {
                args.push(first.to_string().into_bytes());
                args.push(last.to_string().into_bytes());
            }
            let added = c.pipeline(&[args]).remove(0);
            assert_eq!(
                added,
                Reply::Status("OK".into()),
                "ADDSLOTSRANGE {ranges:?}"
            );
        }
        let first = &self.nodes[0];
        for node in &self.nodes[1..] {
            let (port, bus) = (first.port.to_string(), first.bus.to_string());
            let ip = first.ip.as_bytes();
            let met =
                node.connect()
                    .call(&[b"CLUSTER", b"MEET", ip, port.as_bytes(), bus.as_bytes()]);
            assert_eq!(met, Reply::Status("OK".into()), "CLUSTER MEET");
        }
        self.wait_until_ok();
    }

    /// Waits (at most 120 s) until every node says `cluster_state:ok` and
    /// knows every other node's slots.
    pub fn wait_until_ok(&self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let masters = self.nodes.len();
        for node in &self.nodes {
            loop {
                let info = match node.connect().call(&[b"CLUSTER", b"INFO"]) {
                    Reply::Bulk(Some(text)) => String::from_utf8_lossy(&text).into_owned(),
                    other => panic!("CLUSTER INFO answered {other:?}"),
                };
                let serving = node
                    .cluster_nodes()
                    .lines()
                    .filter(|l| l.split(' ').nth(8).is_some())
                    .count();
                if info.contains("cluster_state:ok") && serving == masters {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "the cluster did not settle on {}: {info}",
                    node.address()
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// Moves `slot` (empty) from node `from` to node `to` as `redis-cli
    /// --cluster reshard` does: `IMPORTING` on `to`, `MIGRATING` on `from`,
    /// then, unless `leave_open`, `SETSLOT NODE` on both.
    pub fn move_slot(&self, slot: u16, from: usize, to: usize, leave_open: bool) {
        let (source, target) = (&self.nodes[from], &self.nodes[to]);
        let (source_id, target_id) = (source.id(), target.id());
        let slot = slot.to_string();
        let setslot = |node: &Node, how: &[u8], id: &str| {
            let said =
                node.connect()
                    .call(&[b"CLUSTER", b"SETSLOT", slot.as_bytes(), how, id.as_bytes()]);
            assert_eq!(said, Reply::Status("OK".into()), "SETSLOT {slot}");
        };
        setslot(target, b"IMPORTING", &source_id);
        setslot(source, b"MIGRATING", &target_id);
        if !leave_open {
            setslot(target, b"NODE", &target_id);
            setslot(source, b"NODE", &target_id);
        }
    }

    /// What node `via` answers for each key: its slot (`CLUSTER KEYSLOT`)
    /// and the master serving it: `via` itself when it answers the `GET`
    /// (nil) or redirects it with `-ASK` (the slot is its own, being
    /// migrated), else the node its `-MOVED` names (`None` if unknown).
    pub fn ask(&self, via: usize, keys: &[Vec<u8>]) -> Vec<(u32, Option<usize>)> {
        let mut commands = Vec::with_capacity(keys.len() * 2);
        for key in keys {
            commands.push(vec![b"CLUSTER".to_vec(), b"KEYSLOT".to_vec(), key.clone()]);
            commands.push(vec![b"GET".to_vec(), key.clone()]);
        }
        let replies = self.nodes[via].connect().pipeline(&commands);
        replies
            .chunks(2)
            .map(|pair| {
                let slot = match &pair[0] {
                    Reply::Integer(slot) => *slot as u32,
                    other => panic!("CLUSTER KEYSLOT answered {other:?}"),
                };
                let owner = match &pair[1] {
                    Reply::Bulk(None) => Some(via),
                    Reply::Error(e) if e.starts_with("ASK ") => Some(via),
                    Reply::Error(e) if e.starts_with("MOVED ") => {
                        let address = e.rsplit(' ').next().unwrap();
                        self.nodes.iter().position(|n| n.address() == address)
                    }
                    other => panic!("GET answered {other:?}"),
                };
                (slot, owner)
            })
            .collect()
    }
}

/// Waits (at most 10 s) until `node` answers `PING`.
fn wait_for_pong(node: &mut Node) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(mut c) = Connection::open(&node.ip, node.port) {
            if c.call(&[b"PING"]) == Reply::Status("PONG".into()) {
                return;
            }
        }
        if let Ok(Some(status)) = node.child.try_wait() {
            panic!("redis-server on {} exited: {status}", node.address());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("redis-server on {} did not answer", node.address());
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            let _ = node.child.kill();
            let _ = node.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
