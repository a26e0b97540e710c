//! The PHP binding through Composer: `composer validate` and an install
//! from a path repository.

use ketama_testkit as common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::debian::{built, run, stdout};
use super::installed::{PHP_FIND, assert_answers_match_original, sample};

#[test]
fn composer_validates_and_installs_the_binding_from_a_path_repository() {
    common::require_tool("composer", "composer");
    common::require_tool("php", "php8.2-cli");
    built();
    let php_dir = common::repo_root().join("bindings/php");
    let home = common::scratch_dir("composer-home");
    let composer = |dir: &Path, args: &[&str]| {
        run(
            Command::new("composer")
                .args(args)
                .args(["--no-interaction", "--no-ansi"])
                .current_dir(dir)
                .env("COMPOSER_HOME", home.join("home"))
                .env("COMPOSER_CACHE_DIR", home.join("cache"))
                .env("COMPOSER_ALLOW_SUPERUSER", "1")
                .env("COMPOSER_DISABLE_NETWORK", "1"),
            Duration::from_secs(300),
        )
    };
    composer(&php_dir, &["validate", "--strict"]);
    let project = common::scratch_dir("composer-project");
    std::fs::write(
        project.join("composer.json"),
        format!(
            r#"{{
    "repositories": [
        {{"type": "path", "url": "{}", "options": {{"symlink": false}}}},
        {{"packagist.org": false}}
    ],
    "require": {{"ketama/ketama": "*@dev"}}
}}
"#,
            php_dir.display()
        ),
    )
    .unwrap();
    composer(&project, &["install", "--no-progress"]);
    let script = project.join("find.php");
    std::fs::write(
        &script,
        PHP_FIND.replace("'Ketama/autoload.php'", "__DIR__ . '/vendor/autoload.php'"),
    )
    .unwrap();
    let (servers, keys) = sample(&project);
    let out = run(
        Command::new("php")
            .arg(&script)
            .arg(&servers)
            .args(&keys)
            .env(
                "KETAMA_LIBRARY",
                common::repo_root().join("target/release/libketama.so"),
            ),
        Duration::from_secs(120),
    );
    assert_answers_match_original(&stdout(&out), &servers, &keys, "PHP from Composer");
}
