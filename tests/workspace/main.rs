//! The workspace's own rules: the layout a newcomer relies on (no import
//! cycles, files readable in one sitting, tests included one way), and the
//! script that installs what the tests need.

mod architecture;
mod deps;
