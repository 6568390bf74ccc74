//! Errors as people read them: the C library's sentence and the errno's
//! name, `Input/output error (EIO)`, so a message can be searched for and
//! matched against the kernel's log.

use std::io;

/// The symbolic name of an errno (`EIO`), for the errors storage can return.
pub fn name(errno: i32) -> Option<&'static str> {
    Some(match errno {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::ENXIO => "ENXIO",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::ESPIPE => "ESPIPE",
        libc::EROFS => "EROFS",
        libc::ENOLINK => "ENOLINK",
        libc::EBADMSG => "EBADMSG",
        libc::EOVERFLOW => "EOVERFLOW",
        libc::EILSEQ => "EILSEQ",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ENETDOWN => "ENETDOWN",
        libc::ENETUNREACH => "ENETUNREACH",
        libc::ECONNABORTED => "ECONNABORTED",
        libc::ECONNRESET => "ECONNRESET",
        libc::ENOTCONN => "ENOTCONN",
        libc::ESHUTDOWN => "ESHUTDOWN",
        libc::ETIMEDOUT => "ETIMEDOUT",
        libc::EHOSTDOWN => "EHOSTDOWN",
        libc::EHOSTUNREACH => "EHOSTUNREACH",
        libc::ESTALE => "ESTALE",
        libc::EUCLEAN => "EUCLEAN",
        libc::EREMOTEIO => "EREMOTEIO",
        libc::EDQUOT => "EDQUOT",
        libc::ENOMEDIUM => "ENOMEDIUM",
        libc::EMEDIUMTYPE => "EMEDIUMTYPE",
        libc::ECANCELED => "ECANCELED",
        _ => return None,
    })
}

/// `Input/output error (EIO)`; an error without an errno as it is.
pub fn describe(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => {
            let text = io::Error::from_raw_os_error(n).to_string();
            // std says "Input/output error (os error 5)": keep the sentence, name the errno.
            let sentence = text.split(" (os error").next().unwrap_or(&text).to_string();
            match name(n) {
                Some(nm) => format!("{sentence} ({nm})"),
                None => format!("{sentence} (errno {n})"),
            }
        }
        None => e.to_string(),
    }
}

/// [`describe`] of a raw errno.
pub fn describe_errno(errno: i32) -> String {
    describe(&io::Error::from_raw_os_error(errno))
}

/// Whether an errno says the filesystem ran out of room (space or quota).
pub fn is_no_space(errno: Option<i32>) -> bool {
    matches!(errno, Some(libc::ENOSPC) | Some(libc::EDQUOT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_and_the_name() {
        assert_eq!(describe_errno(libc::EIO), "Input/output error (EIO)");
        assert_eq!(describe_errno(libc::ENOSPC), "No space left on device (ENOSPC)");
        assert_eq!(describe_errno(libc::ENOTCONN), "Transport endpoint is not connected (ENOTCONN)");
        // An errno without a name here keeps its number.
        assert!(describe_errno(4095).ends_with("(errno 4095)"), "{}", describe_errno(4095));
        let plain = io::Error::new(io::ErrorKind::UnexpectedEof, "short transfer: 512 of 4096 bytes");
        assert_eq!(describe(&plain), "short transfer: 512 of 4096 bytes");
        assert!(is_no_space(Some(libc::EDQUOT)) && !is_no_space(Some(libc::EIO)) && !is_no_space(None));
    }
}
