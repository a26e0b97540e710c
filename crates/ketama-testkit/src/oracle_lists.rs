//! The server lists, keys and malformed files that the oracle tests
//! (`tests/c_abi/libketama_oracle.rs`, `tests/bindings/python.rs`) put to
//! the original libketama and to this library.

use std::path::PathBuf;

/// The Python interpreter of the oracle's virtual environment.
pub fn oracle_python() -> PathBuf {
    let python = std::env::var_os("KETAMA_ORACLE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::repo_root().join("target/oracle-venv/bin/python"));
    assert!(
        python.exists(),
        "the libketama oracle is not installed at {python:?}: run `make deps` \
         (it creates a venv with PyPI ketama==0.1.1; needs python3-venv and gcc)"
    );
    python
}

/// Lowercase hex of `bytes`.
pub fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Deterministic pseudo-random numbers (no external crate needed).
pub struct Lcg(pub u64);
impl Lcg {
    // A generator, not an iterator: it never ends, and `next` reads so at
    // its call sites.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// The test keys: 10,000 ordinary keys plus edge keys.
pub fn test_keys(server_lines: &[String]) -> Vec<Vec<u8>> {
    let mut rng = Lcg(42);
    let mut keys: Vec<Vec<u8>> = (0..10_000)
        .map(|i| format!("key:{i}:{}", rng.next()).into_bytes())
        .collect();
    keys.push(Vec::new());
    keys.push(vec![b'k'; 64 * 1024]);
    keys.push("ключ-ü-日本".as_bytes().to_vec());
    keys.push(vec![0xff, 0xfe, 0x80, b'x']);
    keys.push(b"a\0b".to_vec());
    keys.push(b"\0".to_vec());
    // Keys that land exactly on points: the point label "ADDRESS-k" hashes onto word 0.
    for line in server_lines.iter().take(5) {
        let address = line.split_whitespace().next().unwrap_or_default();
        for k in 0..3 {
            keys.push(format!("{address}-{k}").into_bytes());
        }
    }
    keys
}

/// A server file: `ADDRESS<TAB>WEIGHT` lines.
pub fn lines(entries: &[(String, u64)]) -> Vec<u8> {
    entries
        .iter()
        .map(|(a, w)| format!("{a}\t{w}\n"))
        .collect::<String>()
        .into_bytes()
}

/// `n` servers of weight 100.
pub fn equal(n: usize) -> Vec<(String, u64)> {
    (0..n)
        .map(|i| (format!("10.0.{}.{}:11211", i / 200, i % 200 + 1), 100))
        .collect()
}

/// The server lists compared with the original (valid files, as NAME and contents).
pub fn oracle_server_lists() -> Vec<(&'static str, Vec<u8>)> {
    let mut rng = Lcg(7);
    let weighted8: Vec<(String, u64)> = (0..8)
        .map(|i| (format!("10.0.1.{}:11211", i + 1), 100 + rng.next() % 2000))
        .collect();
    let mixed110: Vec<(String, u64)> = (0..110)
        .map(|i| {
            (
                format!("192.168.{}.{}:{}", i % 7, i, 11211 + i % 3),
                if i % 12 == 0 {
                    1
                } else {
                    1000 + rng.next() % 9000
                },
            )
        })
        .collect();
    let mut eleven = vec![("10.1.0.1:11211".to_string(), 512)];
    eleven.extend((1..11).map(|i| (format!("10.1.0.{}:11211", i + 1), 652)));
    let long_addresses = vec![
        ("255.255.255.255:65535".to_string(), 100),   // 21 bytes
        ("255.255.255.255:655351".to_string(), 100),  // 22 bytes
        ("cache-22-bytes-x:11211".to_string(), 300),  // 22 bytes
        ("255.255.255.255:6553512".to_string(), 200), // 23 bytes
        ("cache23.example.n:11211".to_string(), 50),  // 23 bytes
    ];
    let mut overlong_comment = b"#".to_vec();
    overlong_comment.extend(std::iter::repeat_n(b'x', 125));
    overlong_comment.extend(b"10.0.0.9:11211\t50\n"); // the original reads this tail as a server
    let messy = [
        b"# messy but valid\n\n".as_slice(),
        b"  10.0.0.1:11211\t100\r\n",
        b"10.0.0.2:11211 \t +200\n",
        b"10.0.0.3:11211\t0300 \n",
        b"10.0.0.4:11211\t12abc\n",
        b"10.0.0.5:11211\t100\t# comment\n",
        b"10.0.0.6:11211 100 extra\n",
        &overlong_comment,
        b"10.0.0.7:11211\t777",
    ]
    .concat();
    let tie = lines(&[("10.9.2.63:11211".into(), 1), ("10.9.2.65:11211".into(), 1)]);
    let tie_reversed = lines(&[("10.9.2.65:11211".into(), 1), ("10.9.2.63:11211".into(), 1)]);
    let duplicates = lines(&[
        ("10.0.0.1:11211".into(), 1),
        ("10.0.0.2:11211".into(), 2),
        ("10.0.0.1:11211".into(), 1),
    ]);
    let heavy = lines(&[
        ("10.2.0.1:11211".into(), 1 << 40),
        ("10.2.0.2:11211".into(), 3 << 38),
        ("10.2.0.3:11211".into(), 7),
    ]);

    let files: Vec<(&str, Vec<u8>)> = vec![
        ("three_equal", lines(&equal(3))),
        (
            "two_600_400",
            lines(&[
                ("127.0.0.1:11211".into(), 600),
                ("127.0.0.1:11212".into(), 400),
            ]),
        ),
        ("weighted_8", lines(&weighted8)),
        ("one_server", lines(&equal(1))),
        ("equal_61_float_quirk", lines(&equal(61))),
        ("equal_117_capacity", lines(&equal(117))),
        ("mixed_110_zero_point_servers", lines(&mixed110)),
        ("eleven_512_of_7040", lines(&eleven)),
        ("addresses_21_to_23_bytes", lines(&long_addresses)),
        ("messy_but_valid", messy),
        ("tie_first_listed_wins", tie),
        ("tie_reversed", tie_reversed),
        ("duplicate_lines", duplicates),
        ("heavy_weights", heavy),
    ];
    files
}

/// Files the original rejects without crashing (crashing inputs are in
/// `tests/c_abi/bad_input.rs`).
pub const MALFORMED_FILES: &[(&str, &[u8])] = &[
    ("whitespace_only_line", b"10.0.0.1:11211\t100\n   \n"),
    ("blank_crlf_line", b"10.0.0.1:11211\t100\n\r\n"),
    ("indented_comment", b"10.0.0.1:11211\t100\n  # comment\n"),
    ("semicolon_comment", b"; comment\n10.0.0.1:11211\t100\n"),
    ("lone_word", b"x\n"),
    ("no_weight", b"10.0.0.1:11211\n"),
    ("letters", b"10.0.0.1:11211\tabc\n"),
    ("hex", b"10.0.0.1:11211\t0x10\n"),
    ("zero", b"10.0.0.1:11211\t0\n"),
    ("overflow", b"10.0.0.1:11211\t99999999999999999999\n"),
    (
        "single_digit_at_eof",
        b"10.0.0.1:11211\t100\n10.0.0.2:11211\t5",
    ),
    ("address_24_bytes", b"123456789012345678901234\t100\n"),
    ("empty", b""),
    ("comments_only", b"# a\n# b\n\n"),
];
