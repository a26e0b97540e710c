//! What users install: `make install`, the Debian packages of `make deb`
//! (with `make java` and Composer), the PHP package in PHP-FPM, and the
//! Python wheel. `make java` and `make deb` run once for the whole binary
//! (`debian::built`).

mod composer;
mod debian;
mod install;
mod installed;
mod php_fpm;
mod python_wheel;
mod upgrade;
