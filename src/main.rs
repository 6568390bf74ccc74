fn main() -> std::process::ExitCode {
    iolab::cli::main()
}
