import { Button, Heading, Link, NotificationCategory, Subject, Text } from "@vestibule/emails";

type Props = {
  user: { displayName: string | null };
  project: { displayName: string };
  variables: { link: string };
};

export function EmailTemplate({ user, project, variables }: Props) {
  return (
    <>
      <Subject value={`Verify your email at ${project.displayName}`} />
      <NotificationCategory value="Transactional" />
      <Heading style={{ fontSize: "20px", margin: "0 0 16px" }}>Verify your e-mail</Heading>
      <Text>
        Hi{user.displayName ? ` ${user.displayName}` : ""}, please confirm that this e-mail address belongs to you by opening the
        link below.
      </Text>
      <Button href={variables.link} style={{ backgroundColor: "#1d1d1f", color: "#ffffff", borderRadius: "6px" }}>
        Verify my e-mail
      </Button>
      <Text style={{ fontSize: "13px", color: "#6e6e73" }}>
        If the button does not work, open this link: <Link href={variables.link}>{variables.link}</Link>
      </Text>
      <Text style={{ fontSize: "13px", color: "#6e6e73" }}>
        If you did not create an account at {project.displayName}, you can ignore this e-mail.
      </Text>
    </>
  );
}

EmailTemplate.PreviewVariables = { link: "https://example.com/handler/email-verification?code=preview" };
