//! The php-ketama package in PHP-FPM: `make deb` builds it, and
//! `libketama1` and `php-ketama` are unpacked with `dpkg -x` into a
//! temporary root (nothing is installed on the machine). A private
//! php8.2-fpm with Debian's default ini plus the package's own ini snippet
//! (its paths moved under that root, as `phpenmod -s fpm ketama` would link
//! it) serves a script that loads the binding as users do
//! (`require_once 'Ketama/autoload.php';`), and answers like the C library.
//! The snippet is a conffile, not enabled by the package, and its postrm
//! takes it out of every SAPI when the package is removed.

use ketama_testkit as common;
use ketama_testkit::php_fpm;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::ServiceDir;
use php_fpm::{Data, Fpm, check_answers};

const SNIPPET: &str = "etc/php/8.2/mods-available/ketama.ini";

fn run(cmd: &mut Command) -> String {
    let out = common::run_with_timeout(cmd, Duration::from_secs(3600));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The php-ketama and libketama1 files of the one `make java` and `make
/// deb` of this test binary.
fn debs() -> (PathBuf, PathBuf) {
    (
        crate::debian::deb("php-ketama"),
        crate::debian::deb("libketama1"),
    )
}

/// Both packages unpacked into a fresh root, inside `web` (so that PHP's
/// pool user may read them).
fn unpacked(web: &ServiceDir) -> PathBuf {
    let root = web.path().join("root");
    let (php, lib) = debs();
    for deb in [&php, &lib] {
        run(Command::new("dpkg").arg("-x").arg(deb).arg(&root));
    }
    web.open_to_all();
    root
}

fn multiarch_libdir(root: &Path) -> PathBuf {
    let multiarch = run(Command::new("dpkg-architecture").arg("-qDEB_HOST_MULTIARCH"));
    root.join("usr/lib").join(multiarch.trim())
}

#[test]
fn fpm_serves_the_installed_package_with_its_ini_snippet() {
    let web = ServiceDir::new("php-fpm-package");
    let root = unpacked(&web);
    let binding = root.join("usr/share/php/Ketama");
    let shipped = std::fs::read_to_string(root.join(SNIPPET)).expect("the package's ini snippet");
    // Every file the snippet names is in the package.
    for line in shipped
        .lines()
        .filter(|l| !l.starts_with(';') && l.contains('='))
    {
        let (setting, value) = line.split_once('=').unwrap();
        if let Some(path) = value.strip_prefix('/') {
            assert!(
                root.join(path).is_file(),
                "{setting}: {value} is not in the package"
            );
        }
    }
    let snippet = shipped.replace("/usr/share/php/Ketama/", &format!("{}/", binding.display()));
    // /usr/share/php is on Debian's default include_path; the root stands in for it.
    let include_path = format!("include_path=.:{}\n", root.join("usr/share/php").display());
    let fpm = Fpm::start(
        "fpm-package",
        2,
        &[("30-ketama.ini", snippet), ("31-root.ini", include_path)],
        &[("LD_LIBRARY_PATH", multiarch_libdir(&root).into())],
    );
    let script = web
        .stage(&common::repo_root().join("bindings/php/tests"))
        .join("web_request.php");
    let data = Data::new("fpm-package-data");
    let requests = check_answers(
        &|q| fpm.request(&script, &format!("layout=debian&{q}")),
        &data,
        &format!(
            "FFI scope ketama (ffi.preload={}/ketama_ffi.h)",
            binding.display()
        ),
        "php-ketama in PHP-FPM",
    );
    assert_eq!(requests, 5);
    assert!(!fpm.log().contains("WARNING"), "{}", fpm.log());
}

#[test]
fn the_snippet_is_a_conffile_not_enabled_and_removed_from_every_sapi_with_the_package() {
    let (php, _) = debs();
    let control = common::scratch_dir("php-ketama-control");
    run(Command::new("dpkg-deb").arg("-e").arg(php).arg(&control));
    assert_eq!(
        std::fs::read_to_string(control.join("conffiles")).unwrap(),
        format!("/{SNIPPET}\n")
    );
    assert_eq!(
        std::fs::read(control.join("postrm")).unwrap(),
        std::fs::read(common::repo_root().join("packaging/deb/php-ketama.postrm")).unwrap()
    );
    run(Command::new("sh").arg("-n").arg(control.join("postrm")));
    // No postinst: nothing enables the snippet but the administrator.
    assert!(!control.join("postinst").exists());
    let md5sums = std::fs::read_to_string(control.join("md5sums")).unwrap();
    assert!(
        !md5sums.contains("etc/"),
        "conffiles are not in md5sums: {md5sums}"
    );
    let web = ServiceDir::new("php-ketama-snippet");
    let root = unpacked(&web);
    assert_eq!(
        std::fs::read(root.join(SNIPPET)).unwrap(),
        std::fs::read(common::repo_root().join("packaging/deb/php-ketama.ini")).unwrap()
    );
}
