//! The `django-redis` flavour against django-redis itself (Debian
//! `python3-django-redis`), asked in the same run through
//! ketama-testkit/peers/django_redis_peer.py: a `RedisCache` with `ShardClient` over
//! the same `LOCATION` names names the server of every key (as
//! `ShardClient.get` picks it: `get_server_name(make_key(key))`). Every key
//! must go to the same server, on 3, 10 and 100 servers named by URL, unix
//! sockets, and a server listed twice; keys: 10,000 ASCII keys, `{tag}` keys
//! (greedy tags, newlines), non-ASCII text, and keys whose tag is a point
//! label, so that their hash *is* a point.

use ketama_testkit as common;
use ketama_testkit::peers;
use ketama_testkit::redis_clients;

use ketama_core::parser::peers as peer_lists;
use ketama_core::{Flavour, Ring};
use ketama_testkit::harness::{self, Case};
use peers::Weights;
use redis_clients::{ask, redis_lists, ring_of, text_keys};

const FLAVOUR: Flavour = Flavour::DjangoRedis;

/// One cache: our server lines (peer syntax) and its `LOCATION` entries.
struct Location {
    name: String,
    ours: String,
    names: Vec<String>,
}

fn location(name: &str, pairs: &[(String, String)]) -> Location {
    Location {
        name: name.into(),
        ours: pairs.iter().map(|(a, n)| format!("{a} {n}\n")).collect(),
        names: pairs.iter().map(|(_, n)| n.clone()).collect(),
    }
}

fn standard() -> Vec<Location> {
    let mut all: Vec<Location> = redis_lists(&[Weights::None])
        .iter()
        .map(|list| {
            let pairs: Vec<(String, String)> = list
                .servers
                .iter()
                .enumerate()
                .map(|(i, s)| (s.address(), format!("redis://{}/{}", s.address(), i % 3)))
                .collect();
            location(&list.name, &pairs)
        })
        .collect();
    let pair = |a: &str, n: &str| (a.to_string(), n.to_string());
    all.push(location(
        "unix sockets, rediss and IPv6 URLs",
        &[
            pair("10.1.0.1:6379", "unix:///run/redis/a.sock"),
            pair("10.1.0.2:6379", "unix:///run/redis/b.sock?db=2"),
            pair("10.1.0.3:6379", "rediss://10.1.0.3:6379/0"),
            pair("[::1]:6379", "redis://[::1]:6379/1"),
        ],
    ));
    all.push(location(
        "a server listed twice",
        &[
            pair("10.1.0.1:6379", "redis://10.1.0.1:6379/0"),
            pair("10.1.0.2:6379", "redis://10.1.0.2:6379/0"),
            pair("10.1.0.1:6379", "redis://10.1.0.1:6379/0"),
        ],
    ));
    all
}

/// Text keys, and keys `{NAME:x}` whose tag is a point label.
fn keys_for(location: &Location) -> Vec<Vec<u8>> {
    let mut keys = text_keys();
    for name in location.names.iter().take(10) {
        keys.extend((0..30).map(|x| format!("user:{{{name}:{x}}}").into_bytes()));
    }
    keys
}

#[test]
fn shard_client_places_every_key_as_the_library_does() {
    redis_clients::require_python_module("django_redis", "python3-django-redis");
    // The peer names the server: a server listed twice is its first entry.
    let all = standard();
    let table: Vec<Case<&Location>> = all
        .iter()
        .map(|l| Case::new(l.name.as_str(), l, keys_for(l)).named(&l.names))
        .collect();
    let script = common::peer_program("django_redis_peer.py");
    let ask_django = |table: &[Case<&Location>]| {
        let questions = harness::questions(table, |l| l.names.join("\n") + "\n");
        let (answers, said) = ask(
            "django-redis",
            &["/usr/bin/python3".as_ref(), script.as_os_str()],
            &questions,
        );
        print!("{said}");
        assert!(
            said.starts_with("django-redis 5.2"),
            "unexpected django-redis: {said}"
        );
        answers
    };
    let compared = harness::compare(FLAVOUR.name(), &table, ask_django, |case| {
        ring_of(
            peer_lists::parse(case.input.ours.as_bytes(), "servers").unwrap(),
            FLAVOUR,
        )
    });
    assert!(compared >= 5 * 10_000);
    println!("{compared} keys, 0 differences");
}

#[test]
fn weights_are_refused() {
    let servers =
        peer_lists::parse(b"10.1.0.1:6379:2 redis://10.1.0.1:6379/0\n", "servers").unwrap();
    let err = Ring::new(servers, ketama_core::RingConfig::flavour(FLAVOUR))
        .unwrap_err()
        .to_string();
    assert!(err.contains("django-redis has no weights"), "{err}");
}
