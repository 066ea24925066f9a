//! `host-cli`: replay SWF traces through the backfill kernel.

fn main() -> std::process::ExitCode {
    backfill_cli::cli::main()
}
