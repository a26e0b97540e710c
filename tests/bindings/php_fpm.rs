//! The PHP binding where PHP users run it: PHP-FPM and CGI, whose default
//! `ffi.enable=preload` lets only preloaded code use FFI. Debian's php8.2-fpm
//! (a private master on a unix socket in a scratch directory, driven by real
//! FastCGI requests from libfcgi's `cgi-fcgi`) and php8.2-cgi run with their
//! default php.ini and conf.d plus the ini snippet php-ketama ships
//! (packaging/deb/php-ketama.ini), pointed at this checkout's bindings/php;
//! the answers are compared with the `ketama` CLI's and the C library's.
//! Without the snippet the request fails with an error that names the
//! setting, the SAPI and the ways out.

use ketama_testkit as common;
use ketama_testkit::php_fpm;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

use common::ServiceDir;
use common::{repo_root, shared_library_dir};
use php_fpm::{Data, Fpm, check_answers, mapped_libketama, php_cgi, query};

/// This checkout's bindings/php.
fn binding() -> PathBuf {
    repo_root().join("bindings/php")
}

/// The binding and the library as PHP's pool user reads them
/// ([`ServiceDir`]): bindings/php and this build's library directory, or
/// (run as root) copies of them that www-data may read.
struct Site {
    _web: ServiceDir,
    binding: PathBuf,
    library: PathBuf,
}

impl Site {
    fn new(name: &str) -> Site {
        let web = ServiceDir::new(name);
        let binding = web.stage(&binding());
        let library = web.stage(shared_library_dir());
        Site {
            _web: web,
            binding,
            library,
        }
    }

    fn script(&self) -> PathBuf {
        self.binding.join("tests/web_request.php")
    }

    /// Debian's conf.d plus the shipped snippet (phpenmod links it as 30-ketama.ini).
    fn snippet(&self) -> Vec<(&'static str, String)> {
        vec![("30-ketama.ini", php_fpm::ketama_snippet(&self.binding))]
    }

    /// What Ketama\Library::path() reports when it uses the preloaded scope.
    fn preloaded_scope(&self) -> String {
        format!(
            "FFI scope ketama (ffi.preload={}/ketama_ffi.h)",
            self.binding.display()
        )
    }

    /// The snippet's `FFI_LIB` is `libketama.so.1`, found by the dynamic
    /// loader: here in this build's library directory (workers are forked
    /// from the master and keep its loader's path).
    fn library_env(&self) -> Vec<(&'static str, OsString)> {
        vec![("LD_LIBRARY_PATH", self.library.clone().into())]
    }
}

/// web_request.php's `info` lines for a fully preloaded binding: a class
/// per bindings/php/src file, and compat.php's functions.
fn binding_declarations() -> String {
    let mut classes: Vec<String> = std::fs::read_dir(binding().join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|f| f.strip_suffix(".php").map(|c| format!("Ketama\\{c}")))
        .collect();
    classes.sort();
    let compat = std::fs::read_to_string(binding().join("compat.php")).unwrap();
    let mut functions: Vec<&str> = compat
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("function ketama_"))
        .map(|rest| &rest[..rest.find('(').unwrap()])
        .collect();
    functions.sort_unstable();
    let functions: Vec<String> = functions.iter().map(|f| format!("ketama_{f}")).collect();
    assert!(
        classes.len() >= 8 && functions.len() >= 5,
        "{classes:?} {functions:?}"
    );
    format!(
        "preloaded classes: {}\npreloaded functions: {}\n",
        classes.join(" "),
        functions.join(" ")
    )
}

#[test]
fn fpm_serves_the_preloaded_binding_as_the_c_library_answers() {
    let site = Site::new("fpm-answers-site");
    let data = Data::new("fpm-answers-data");
    let fpm = Fpm::start("fpm-answers", 2, &site.snippet(), &site.library_env());
    let info = fpm.request(&site.script(), "case=info");
    info.assert_ok("info");
    assert_eq!(info.origin().1, site.preloaded_scope());
    assert_eq!(
        info.data(),
        binding_declarations(),
        "opcache's preload statistics"
    );
    let requests = check_answers(
        &|q| fpm.request(&site.script(), q),
        &data,
        &site.preloaded_scope(),
        "PHP-FPM",
    );
    assert_eq!(requests, 5);
    assert!(!fpm.log().contains("WARNING"), "{}", fpm.log());
}

/// The library is opened once, by the master at startup (ffi.preload), and
/// every worker inherits it: after hundreds of requests each worker still
/// maps that one file, and every request used the preloaded scope.
#[test]
fn fpm_workers_reuse_the_preloaded_scope_across_requests() {
    const REQUESTS: usize = 300;
    let site = Site::new("fpm-reuse-site");
    let data = Data::new("fpm-reuse-data");
    let fpm = Fpm::start("fpm-reuse", 2, &site.snippet(), &site.library_env());
    let library = site.library.join("libketama.so");
    let loaded = mapped_libketama(fpm.pid());
    assert_eq!(
        loaded.len(),
        1,
        "the master maps libketama once: {loaded:?}"
    );
    assert_eq!(PathBuf::from(&loaded[0].1), library);
    let workers = fpm.workers();
    assert_eq!(workers.len(), 2, "pm.max_children = 2: {workers:?}");
    for worker in &workers {
        assert_eq!(
            mapped_libketama(*worker),
            loaded,
            "worker {worker} before any request"
        );
    }

    let keys: Vec<String> = data.keys()[..REQUESTS].to_vec();
    let servers = data.servers.to_str().unwrap();
    let mut answers = String::new();
    let mut served: BTreeMap<u32, usize> = BTreeMap::new();
    for key in &keys {
        let response = fpm.request(
            &site.script(),
            &query(&[("case", "key"), ("servers", servers), ("key", key)]),
        );
        response.assert_ok(key);
        let (pid, via) = response.origin();
        assert_eq!(via, site.preloaded_scope(), "request for {key}");
        *served.entry(pid).or_default() += 1;
        answers.push_str(response.data());
    }
    assert!(
        answers == data.cli_find(&[], &keys),
        "answers differ from `ketama find`"
    );
    assert_eq!(served.values().sum::<usize>(), REQUESTS);
    assert!(
        served.keys().all(|pid| workers.contains(pid)),
        "a request was served by a worker started later: {served:?} vs {workers:?}"
    );
    assert!(served.values().any(|&n| n > 1), "{served:?}");
    for worker in &workers {
        assert_eq!(
            mapped_libketama(*worker),
            loaded,
            "worker {worker} after {REQUESTS} requests"
        );
    }
    // FPM's own count: these requests, the connection Fpm::start waited
    // for, and the status request itself.
    let status = fpm.status();
    assert!(
        status.contains(&format!("accepted conn:        {}\n", REQUESTS + 2)),
        "FPM's count of connections:\n{status}"
    );
    eprintln!(
        "PHP-FPM: {REQUESTS} FastCGI requests served by workers {served:?} (requests per PID); \
         {} mapped once, by the master before the first request, and inherited by each worker; \
         every request used the preloaded FFI scope",
        library.display()
    );
}

/// Writes `text` to `path` in place, modified an hour ago, and waits past
/// the 100 ms its ctime takes to settle.
fn write_settled(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
}

/// A counter of `Ketama\RingCache::stats()`'s JSON line.
fn counter(json: &str, name: &str) -> u64 {
    let at = json
        .find(&format!("\"{name}\":"))
        .unwrap_or_else(|| panic!("{name} in {json}"));
    let digits: String = json[at + name.len() + 3..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// A worker keeps its rings across requests: the first request builds the
/// ring, the next ones find it (the library's ring cache, counted by
/// `Ketama\RingCache::stats()`), from a file and from a list; a file edited
/// in place between two requests is read by the next request once it has
/// settled, and the requests after that find the new ring.
#[test]
fn fpm_workers_keep_rings_across_requests_and_see_an_edit_once_settled() {
    let site = Site::new("fpm-cache-site");
    let data = ServiceDir::new("fpm-cache-data");
    let servers = data.path().join("servers");
    let list = data.path().join("list.php");
    std::fs::write(
        &list,
        "<?php return ['10.0.0.1:11211' => 100, '10.0.0.2:11211' => 200];\n",
    )
    .unwrap();
    write_settled(&servers, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n");
    data.open_to_all();
    let fpm = Fpm::start("fpm-cache", 1, &site.snippet(), &site.library_env());
    let ask = |extra: &[(&str, &str)]| {
        let mut pairs = vec![
            ("case", "cache"),
            ("servers", servers.to_str().unwrap()),
            ("key", "user:1"),
        ];
        pairs.extend_from_slice(extra);
        let response = fpm.request(&site.script(), &query(&pairs));
        response.assert_ok("cache");
        let (answer, json) = response.data().split_once('\n').unwrap();
        let stats = (counter(json, "hits"), counter(json, "misses"));
        (response.origin().0, answer.to_string(), stats)
    };
    let (worker, first, (hits, misses)) = ask(&[]);
    assert!(
        first.starts_with("user:1\t10.0.0.") && first.ends_with("\t2"),
        "{first}"
    );
    assert_eq!(
        (hits, misses),
        (0, 1),
        "the worker's first request reads the file"
    );
    for n in 1..=3 {
        assert_eq!(
            ask(&[]),
            (worker, first.clone(), (n, 1)),
            "request {n} after the first"
        );
    }
    let listed = ask(&[("list", list.to_str().unwrap())]);
    assert_eq!(listed.2, (3, 2), "a list: built once...");
    assert_eq!(
        ask(&[("list", list.to_str().unwrap())]).2,
        (4, 2),
        "...then found"
    );
    write_settled(
        &servers,
        "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n",
    );
    let (_, edited, stats) = ask(&[]);
    assert!(edited.ends_with("\t3"), "the edit is read: {edited}");
    assert_eq!(stats, (4, 3));
    let (same_worker, again, stats) = ask(&[]);
    assert_eq!((same_worker, again, stats), (worker, edited, (5, 3)));
    assert!(!fpm.log().contains("WARNING"), "{}", fpm.log());
}

/// PHP's default restriction without the snippet: the request fails with
/// an error naming ffi.enable, the SAPI and the two ways out, each of which
/// then works.
#[test]
fn fpm_without_the_snippet_names_the_setting_the_sapi_and_the_ways_out() {
    let site = Site::new("fpm-restricted-site");
    let data = Data::new("fpm-restricted-data");
    let ask = query(&[
        ("case", "key"),
        ("servers", data.servers.to_str().unwrap()),
        ("key", "user:1"),
    ]);
    let expected = data.cli_find(&[], &["user:1".to_string()]);

    let fpm = Fpm::start("fpm-restricted", 1, &[], &site.library_env());
    let response = fpm.request(&site.script(), &ask);
    assert_eq!(
        response.status(),
        Some("500 Internal Server Error"),
        "{response:?}"
    );
    assert_restriction_error(&response.stderr, "fpm-fcgi", &site);
    drop(fpm);

    // Way out 1: the snippet (the other tests). Way out 2: ffi.enable=true,
    // where the binding opens the library itself in every request.
    let fpm = Fpm::start(
        "fpm-ffi-enabled",
        1,
        &[("30-ffi.ini", "ffi.enable=true\n".to_string())],
        &site.library_env(),
    );
    let response = fpm.request(&site.script(), &ask);
    response.assert_ok("ffi.enable=true");
    assert_ne!(response.origin().1, site.preloaded_scope());
    assert_eq!(response.data(), expected);
}

fn assert_restriction_error(log: &str, sapi: &str, site: &Site) {
    let dir = &site.binding;
    for part in [
        format!(
            "PHP Fatal error:  Uncaught Ketama\\KetamaException: FFI is restricted by ffi.enable=preload \
             (PHP's default) in the {sapi} SAPI: only preloaded code may use FFI, and the Ketama binding \
             was not preloaded. Either preload it: ffi.preload={dir}/ketama_ffi.h and \
             opcache.preload={dir}/preload.php",
            dir = dir.display()
        ),
        "opcache.preload_user=www-data".to_string(),
        "or allow FFI in every script with ffi.enable=true.".to_string(),
    ] {
        assert!(log.contains(&part), "missing {part:?} in:\n{log}");
    }
    assert!(!log.contains("not found"), "{log}");
}

/// The CGI SAPI (php-cgi, one process per request): preloaded by the same
/// snippet it answers like the C library; without it, the same clear error.
#[test]
fn php_cgi_serves_the_preloaded_binding_and_reports_the_restriction_without_it() {
    php_fpm::require_web_sapis();
    let site = Site::new("php-cgi-site");
    let data = Data::new("php-cgi-data");
    let requests = check_answers(
        &|q| php_cgi(&site.script(), q, &site.snippet(), &site.library_env()),
        &data,
        &site.preloaded_scope(),
        "php-cgi",
    );
    assert_eq!(requests, 5);
    let ask = query(&[
        ("case", "key"),
        ("servers", data.servers.to_str().unwrap()),
        ("key", "user:1"),
    ]);
    let response = php_cgi(&site.script(), &ask, &[], &site.library_env());
    assert_eq!(
        response.status(),
        Some("500 Internal Server Error"),
        "{response:?}"
    );
    assert_restriction_error(&response.stderr, "cgi-fcgi", &site);
}
