// Failures of the e-mail concern (issue 44): a user's notices setting.
import { type FieldError, PaygateError } from "./base.ts";

export const emailErrors = {
  emailNoticesValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", fieldErrors.map((e) => e.message).join("; "), "invalid_email_notices", fieldErrors),
  /** Notices are a user's own mail: an owner cannot subscribe another user. */
  emailNoticesNotOwn: () =>
    new PaygateError("forbidden", "E-mail notices are each user's own choice: sign in as that user to turn them on or off", "email_notices_not_own"),
  /** Likewise their language. */
  noticeLanguageNotOwn: () =>
    new PaygateError(
      "forbidden",
      "The language of e-mail notices is each user's own choice: sign in as that user to change it",
      "email_notices_not_own",
    ),
};
