//! The Jedis peer program (`peers/JedisPeer.java`): Jedis' sharded ring on
//! the Java runtime.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::peer_programs::{compile_java, run_java};
use crate::peers::write_keys;

fn classes() -> &'static str {
    static CLASSES: OnceLock<String> = OnceLock::new();
    CLASSES.get_or_init(|| {
        compile_java("JedisPeer.java", "jedis-classes", "")
            .display()
            .to_string()
    })
}

/// One sharded ring to ask about.
pub struct JedisCase<'a> {
    /// `MURMUR` or `MD5`.
    pub hash: &'static str,
    /// Each shard's name (`None`: `SHARD-i-NODE-n` labels) and weight.
    pub shards: Vec<(Option<String>, u64)>,
    /// The keys (valid UTF-8).
    pub keys: &'a [Vec<u8>],
}

/// What the Java ring answered for one case.
pub struct JedisAnswer {
    /// Each key's shard index.
    pub shards: Vec<usize>,
    /// The ring in `TreeMap` order: (signed point, shard index).
    pub ring: Vec<(i64, usize)>,
}

fn fresh(name: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    crate::scratch_dir(&format!("{name}-{}", CALLS.fetch_add(1, Ordering::Relaxed)))
}

/// Asks the Java ring about every case in one JVM.
pub fn jedis_answers(cases: &[JedisCase]) -> Vec<JedisAnswer> {
    let root = fresh("jedis-cases");
    let dirs: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let dir = root.join(format!("case{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            write_keys(&dir.join("keys"), c.keys);
            let mut text = format!("hash {}\n", c.hash);
            for (name, weight) in &c.shards {
                text += &format!("shard {weight} {}\n", name.as_deref().unwrap_or("-"));
            }
            std::fs::write(dir.join("case"), text).unwrap();
            dir
        })
        .collect();
    let mut args: Vec<&Path> = vec![Path::new("ring")];
    args.extend(dirs.iter().map(PathBuf::as_path));
    run_java(classes(), "JedisPeer", &args);
    dirs.iter()
        .map(|dir| {
            let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
            JedisAnswer {
                shards: read("out").lines().map(|l| l.parse().unwrap()).collect(),
                ring: read("dump")
                    .lines()
                    .map(|l| {
                        let (p, s) = l.split_once(' ').unwrap();
                        (p.parse().unwrap(), s.parse().unwrap())
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The Java MurmurHash64A of each `(bytes, seed)`.
pub fn jedis_murmur_vectors(vectors: &[(Vec<u8>, u64)]) -> Vec<u64> {
    let dir = fresh("jedis-vectors");
    let text: String = vectors
        .iter()
        .map(|(bytes, seed)| {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let hex = if hex.is_empty() { "-".to_string() } else { hex };
            format!("{hex} {seed:x}\n")
        })
        .collect();
    std::fs::write(dir.join("in"), text).unwrap();
    run_java(
        classes(),
        "JedisPeer",
        &[Path::new("vectors"), &dir.join("in"), &dir.join("out")],
    );
    std::fs::read_to_string(dir.join("out"))
        .unwrap()
        .lines()
        .map(|l| u64::from_str_radix(l, 16).unwrap())
        .collect()
}
