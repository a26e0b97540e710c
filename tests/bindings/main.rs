//! The bindings where their users run them, each against the C library and
//! the CLI: PHP (CLI, PHP-FPM and CGI), Java (JNA), Python (the native
//! module in a fresh venv), and the agreement of every language on every
//! flavour. Shared helpers come from `ketama_testkit`.

mod agreement;
mod java;
mod matrix;
mod php;
mod php_fpm;
mod python;
mod replicas;
