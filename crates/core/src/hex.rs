//! Bytes as lowercase hex digits, the form of every hash, seal, key and token the engine writes,
//! and back.

/// `bytes` as lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    out
}

/// The bytes that lowercase hex digits spell; `None` for anything else (an odd length, an
/// upper-case or other character).
pub fn parse_hex(text: &[u8]) -> Option<Vec<u8>> {
    let digit = |byte: u8| match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        _ => None,
    };
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks(2).map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_goes_there_and_back_and_refuses_what_is_not_lowercase_hex() {
        assert_eq!(hex(&[0, 15, 255]), "000fff");
        assert_eq!(parse_hex(b"000fff"), Some(vec![0, 15, 255]));
        for bad in [&b"0"[..], b"0F", b"+a", b"zz", "é0".as_bytes()] {
            assert_eq!(parse_hex(bad), None, "{bad:?}");
        }
    }
}
