import { Button, Heading, Link, NotificationCategory, Subject, Text } from "@vestibule/emails";

type Props = {
  user: { displayName: string | null };
  project: { displayName: string };
  variables: { link: string };
};

export function EmailTemplate({ user, project, variables }: Props) {
  return (
    <>
      <Subject value={`Reset your password at ${project.displayName}`} />
      <NotificationCategory value="Transactional" />
      <Heading style={{ fontSize: "20px", margin: "0 0 16px" }}>Reset your password</Heading>
      <Text>
        Hi{user.displayName ? ` ${user.displayName}` : ""}, someone asked to reset the password of your {project.displayName}{" "}
        account. Open the link below to choose a new password.
      </Text>
      <Button href={variables.link} style={{ backgroundColor: "#1d1d1f", color: "#ffffff", borderRadius: "6px" }}>
        Reset my password
      </Button>
      <Text style={{ fontSize: "13px", color: "#6e6e73" }}>
        If the button does not work, open this link: <Link href={variables.link}>{variables.link}</Link>
      </Text>
      <Text style={{ fontSize: "13px", color: "#6e6e73" }}>
        If you did not ask for this, you can ignore this e-mail; your password stays unchanged.
      </Text>
    </>
  );
}

EmailTemplate.PreviewVariables = { link: "https://example.com/handler/password-reset?code=preview" };
