//! Every field and struct argument together: `rename`, `secret` on a plain type and on an
//! `Option`, `Option<Secret<T>>`, a raw identifier, paths to the types, `validate` by path
//! (a fn and an associated fn), `discover = false` and a field configured out.

use green_tea::settings::{ByteSize, Secret, Settings};

#[derive(green_tea::settings::Settings)]
#[settings(provides = "mail", prefix = "MAIL", validate = check_mail, discover = false)]
struct MailSettings {
    #[settings(rename = "host")]
    server: String,
    #[settings(secret)]
    password: String,
    #[settings(secret)]
    api_key: Option<String>,
    backup_token: Option<Secret<String>>,
    r#type: String,
    #[settings(default = "512KiB")]
    max_size: ByteSize,
    #[settings(default = "1m 30s")]
    timeout: std::time::Duration,
    #[settings(default = "a,b")]
    tags: Vec<String>,
    #[settings(nested)]
    retry: Retry,
    // Configured out before the derive sees it: neither read nor listed.
    #[cfg(any())]
    #[settings(nested)]
    unknown: NotASettingsType,
}

#[derive(Settings)]
#[settings(validate = Self::check)]
struct Retry {
    #[settings(default = "3")]
    attempts: u8,
}

impl Retry {
    fn check(&self) -> Result<(), String> {
        if self.attempts == 0 {
            Err("attempts must be at least 1".to_owned())
        } else {
            Ok(())
        }
    }
}

fn check_mail(mail: &MailSettings) -> Result<(), String> {
    let _ = (
        &mail.password,
        &mail.api_key,
        &mail.backup_token,
        &mail.r#type,
    );
    let _ = (mail.max_size, mail.timeout, &mail.tags, mail.retry.attempts);
    if mail.server.is_empty() {
        Err("no host".to_owned())
    } else {
        Ok(())
    }
}

#[test]
fn compiles_and_runs() {
    let fields = MailSettings::fields();
    let names: Vec<_> = fields.iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "host",
            "password",
            "api_key",
            "backup_token",
            "type",
            "max_size",
            "timeout",
            "tags",
            "retry"
        ]
    );
    let secret: Vec<_> = fields.iter().filter(|f| f.secret).map(|f| f.name).collect();
    assert_eq!(secret, ["password", "api_key", "backup_token"]);
    let optional: Vec<_> = fields
        .iter()
        .filter(|f| f.optional)
        .map(|f| f.name)
        .collect();
    assert_eq!(optional, ["api_key", "backup_token"]);
    let types: Vec<_> = fields.iter().map(|f| f.type_name).collect();
    assert_eq!(
        types,
        [
            "String",
            "String",
            "String",
            "String",
            "String",
            "ByteSize",
            "Duration",
            "Vec<String>",
            "Retry"
        ]
    );
    assert_eq!(fields[5].default, Some("512KiB"));
    let nested = (fields[8].nested.expect("retry is nested"))();
    assert_eq!(nested[0].name, "attempts");
    assert!(Retry { attempts: 0 }.validate().is_err());
}
