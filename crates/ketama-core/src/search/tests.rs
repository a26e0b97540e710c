//! Every search's keyspace checked against its own lookup: each hash has
//! the owner of the part it falls in.

use super::*;
use crate::continuum::TiePolicy;

fn lcg(state: &mut u64) -> u32 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 32) as u32
}

/// The hash that answers for the part holding `hash`, in a keyspace whose
/// cuts are sorted.
fn probe_of(space: &Keyspace, hash: u32) -> u32 {
    match space {
        Keyspace::Arcs(cuts) => match cuts.partition_point(|&c| c < hash) {
            at if at == cuts.len() => u32::MAX,
            at => cuts[at],
        },
        Keyspace::Classes(count) => hash % count,
    }
}

#[test]
fn every_hash_has_the_owner_of_its_part() {
    let mut seed = 5u64;
    for size in [1usize, 2, 3, 10, 200, 3000] {
        // Few distinct values among many points, so that ties occur; the
        // edges of the circle among them.
        let mut generated: Vec<(u32, u32)> = (0..size)
            .map(|i| (lcg(&mut seed) % (size as u32 * 4), (i % 5) as u32))
            .map(|(p, o)| (p.wrapping_mul(1_048_573), o))
            .collect();
        if size > 2 {
            generated[1].0 = 0;
            generated[2].0 = u32::MAX;
        }
        for ties in [TiePolicy::FirstWins, TiePolicy::LastWins] {
            let c = Continuum::new(generated.clone(), ties);
            let mut probes: Vec<u32> = vec![0, 1, u32::MAX, u32::MAX - 1];
            for &p in c.points() {
                probes.extend([p, p.wrapping_sub(1), p.wrapping_add(1)]);
                probes.extend([p.wrapping_add(p / 2), p / 2]);
            }
            probes.extend((0..3000).map(|_| lcg(&mut seed)));
            for &search in Search::ALL {
                let mut space = search.keyspace(c.points());
                if let Keyspace::Arcs(cuts) = &mut space {
                    cuts.sort_unstable();
                }
                let owner = |h: u32| c.owners()[search.locate(&c, h).unwrap()];
                for &h in &probes {
                    assert_eq!(
                        owner(h),
                        owner(probe_of(&space, h)),
                        "{search:?}, {size} points, hash {h}"
                    );
                }
                let total: u64 = space.parts().iter().map(|p| p.0).sum();
                assert_eq!(total, 1 << 32, "{search:?}");
            }
        }
    }
}

#[test]
fn failover_skips_the_points_of_down_owners() {
    let c = Continuum::new(
        vec![(100, 0), (200, 1), (300, 2), (400, 0)],
        TiePolicy::FirstWins,
    );
    for &search in Search::ALL {
        for h in [0, 99, 100, 150, 250, 399, 401, u32::MAX] {
            let up = search.locate(&c, h);
            assert_eq!(search.locate_live(&c, h, |_| true), up, "{search:?} {h}");
            let live = |i: usize| c.owners()[i] != 1;
            let at = search.locate_live(&c, h, live).unwrap();
            assert_ne!(c.owners()[at], 1, "{search:?} {h}");
            assert_eq!(search.locate_live(&c, h, |_| false), None);
        }
    }
    let empty = Continuum::new(vec![], TiePolicy::FirstWins);
    for &search in Search::ALL {
        assert_eq!(search.locate(&empty, 7), None);
        assert_eq!(search.locate_live(&empty, 7, |_| true), None);
    }
}

#[test]
fn keyspaces_overlay_when_alike() {
    let arcs = |cuts: &[u32]| Keyspace::Arcs(cuts.to_vec());
    assert_eq!(
        Keyspace::overlay(vec![arcs(&[5, 1]), arcs(&[3])]),
        Some(arcs(&[5, 1, 3]))
    );
    assert_eq!(
        Keyspace::overlay(vec![Keyspace::Classes(8), Keyspace::Classes(8)]),
        Some(Keyspace::Classes(8))
    );
    assert_eq!(
        Keyspace::overlay(vec![arcs(&[1]), Keyspace::Classes(8)]),
        None
    );
    assert!(Search::AtOrAfter.overlays(Search::Nearest));
    assert!(Search::Buckets.overlays(Search::Buckets));
    assert!(!Search::Buckets.overlays(Search::AtOrBefore));
    assert_eq!(
        arcs(&[9, 3, 9]).parts(),
        vec![(4, 3), (6, 9), (u64::from(u32::MAX - 9), u32::MAX)]
    );
    assert_eq!(arcs(&[]).parts(), vec![(1 << 32, u32::MAX)]);
    let thirds = Keyspace::Classes(3).parts();
    assert_eq!(thirds.iter().map(|p| p.0).sum::<u64>(), 1 << 32);
    assert_eq!(thirds[0], (1_431_655_766, 0));
}

/// The shared machinery is written without a client in mind: no flavour's
/// name or alias appears in it (a placement names its search and its key
/// preparation instead). The analysis tests, which drive real flavours,
/// are left out.
#[test]
fn the_shared_machinery_names_no_client() {
    use crate::registry::Named;
    let files = [
        ("ring.rs", include_str!("../ring.rs")),
        ("continuum.rs", include_str!("../continuum.rs")),
        ("analysis.rs", include_str!("../analysis.rs")),
        ("batch.rs", include_str!("../batch.rs")),
        ("search/mod.rs", include_str!("mod.rs")),
        ("search/tests.rs", include_str!("tests.rs")),
        ("search/at_or_after.rs", include_str!("at_or_after.rs")),
        ("search/after.rs", include_str!("after.rs")),
        ("search/at_or_before.rs", include_str!("at_or_before.rs")),
        ("search/nearest.rs", include_str!("nearest.rs")),
        ("search/no_wrap.rs", include_str!("no_wrap.rs")),
        ("search/after_no_wrap.rs", include_str!("after_no_wrap.rs")),
        ("search/buckets.rs", include_str!("buckets.rs")),
    ];
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
            .map(|w| w.trim_matches('.').to_ascii_lowercase().replace('_', "-"))
            .collect()
    };
    let mut found = Vec::new();
    for flavour in crate::Flavour::ALL {
        let names = std::iter::once(flavour.name()).chain(flavour.aliases().iter().copied());
        for name in names {
            let name = name.to_ascii_lowercase().replace('_', "-");
            for (file, text) in files {
                // This test names the clients it looks for only through the
                // registry.
                if words(text).contains(&name) {
                    found.push(format!("{file}: {name}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "client names in the shared machinery: {found:?}"
    );
}
