import { Button, Heading, Link, NotificationCategory, Subject, Text } from "@vestibule/emails";

type Props = {
  user: { displayName: string | null };
  project: { displayName: string };
  variables: { link: string };
};

export function EmailTemplate({ project, variables }: Props) {
  return (
    <>
      <Subject value={`You have been invited to sign in to ${project.displayName}`} />
      <NotificationCategory value="Transactional" />
      <Heading style={{ fontSize: "20px", margin: "0 0 16px" }}>You are invited</Heading>
      <Text>You have been invited to sign in to {project.displayName}. Open the link below to get started.</Text>
      <Button href={variables.link} style={{ backgroundColor: "#1d1d1f", color: "#ffffff", borderRadius: "6px" }}>
        Sign in
      </Button>
      <Text style={{ fontSize: "13px", color: "#6e6e73" }}>
        If the button does not work, open this link: <Link href={variables.link}>{variables.link}</Link>
      </Text>
    </>
  );
}

EmailTemplate.PreviewVariables = { link: "https://example.com/handler/sign-in" };
