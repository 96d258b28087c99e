use green_tea::prelude::*;

#[derive(Settings)]
#[settings(provides = "mailSettings", prefix = "MAIL", when = ["mailOn", "gateway = stripe | stripe"])]
struct MailSettings {
    host: String,
}

fn main() {}
