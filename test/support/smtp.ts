// A real SMTP server in the test process (smtp-server) that keeps every message it accepts, parsed
// by mailparser; it can refuse the next recipients with a reply of the test's choice.
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface SmtpInbox {
  url: string;
  messages: ParsedMail[];
  /** Refuses the next `count` recipients with `code` (451: try later; 550: refused). */
  refuseNext(count: number, code?: number): void;
  /** Messages to this address. */
  to(address: string): ParsedMail[];
  close(): Promise<void>;
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const messages: ParsedMail[] = [];
  let refusals = 0;
  let refusalCode = 451;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (refusals > 0) {
        refusals -= 1;
        const error = Object.assign(new Error("mailbox busy, try again later"), { responseCode: refusalCode });
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuseNext(count, code = 451) {
      refusals = count;
      refusalCode = code;
    },
    to: (address) =>
      messages.filter((m) => (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).some((a) => a.value.some((v) => v.address === address))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
