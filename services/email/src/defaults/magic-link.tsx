import { Button, Heading, Link, NotificationCategory, Subject, Text } from "@vestibule/emails";

type Props = {
  user: { displayName: string | null };
  project: { displayName: string };
  variables: { link: string; otp: string };
};

export function EmailTemplate({ project, variables }: Props) {
  return (
    <>
      <Subject value={`Sign in to ${project.displayName}: Your code is ${variables.otp}`} />
      <NotificationCategory value="Transactional" />
      <Heading style={{ fontSize: "20px", margin: "0 0 16px" }}>Sign in to {project.displayName}</Heading>
      <Text>Enter this code to sign in:</Text>
      <Text style={{ fontSize: "28px", fontWeight: 700, letterSpacing: "6px", fontFamily: "Menlo, Consolas, monospace" }}>{variables.otp}</Text>
      <Text>Or open the link below:</Text>
      <Button href={variables.link} style={{ backgroundColor: "#1d1d1f", color: "#ffffff", borderRadius: "6px" }}>
        Sign in
      </Button>
      <Text style={{ fontSize: "13px", color: "#6e6e73" }}>
        If the button does not work, open this link: <Link href={variables.link}>{variables.link}</Link>
      </Text>
      <Text style={{ fontSize: "13px", color: "#6e6e73" }}>If you did not try to sign in, you can ignore this e-mail.</Text>
    </>
  );
}

EmailTemplate.PreviewVariables = { link: "https://example.com/handler/magic-link-callback?code=preview", otp: "3A7K9Q" };
