//! The .NET peer program (`peers/EnyimPeer.cs`, compiled with Mono's `mcs`
//! and run by `mono`): EnyimMemcached's node locators on the .NET runtime.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::peer_programs::PeerAnswer;
use crate::peers::write_keys;

/// `peers/EnyimPeer.cs`, compiled once.
fn enyim_program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        crate::require_tool("mcs", "mono-mcs");
        crate::require_tool("mono", "mono-runtime");
        let exe = crate::scratch_dir("enyim-peer").join("EnyimPeer.exe");
        let output = crate::run_with_timeout(
            Command::new("mcs")
                .arg(format!("-out:{}", exe.display()))
                .arg(crate::peer_program("EnyimPeer.cs")),
            Duration::from_secs(180),
        );
        assert!(
            output.status.success(),
            "mcs EnyimPeer.cs failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        exe
    })
}

/// One locator to ask about.
pub struct EnyimCase<'a> {
    /// `LEGACY` (EnyimMemcached, EnyimMemcachedCore's `LegacyNodeLocator`)
    /// or `CORE` (EnyimMemcachedCore's `DefaultNodeLocator`).
    pub locator: &'static str,
    /// Points per node (`ServerAddressMutations`).
    pub mutations: u32,
    /// Each node's host (an IP literal, IPv6 without brackets, or a name)
    /// and port.
    pub servers: Vec<(String, u16)>,
    /// Nodes whose `IsAlive` is false.
    pub down: Vec<usize>,
    /// The keys (valid UTF-8).
    pub keys: &'a [Vec<u8>],
}

/// Asks the .NET peer about every case in one run: each key's node and the
/// full index's distinct points.
pub fn enyim_answers(cases: &[EnyimCase]) -> Vec<PeerAnswer> {
    let program = enyim_program();
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let root = crate::scratch_dir(&format!(
        "enyim-cases-{}",
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    let dirs: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let dir = root.join(format!("case{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            write_keys(&dir.join("keys"), c.keys);
            let mut text = format!("locator {}\nmutations {}\n", c.locator, c.mutations);
            for (host, port) in &c.servers {
                text += &format!("server {host} {port}\n");
            }
            for d in &c.down {
                text += &format!("down {d}\n");
            }
            std::fs::write(dir.join("case"), text).unwrap();
            dir
        })
        .collect();
    let output = crate::run_with_timeout(
        Command::new("mono").arg(program).args(&dirs),
        Duration::from_secs(600),
    );
    assert!(
        output.status.success(),
        "EnyimPeer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    dirs.iter()
        .map(|dir| crate::peer_programs::read_peer_answer(dir))
        .collect()
}
