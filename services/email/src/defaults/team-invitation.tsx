import { Button, Heading, Link, NotificationCategory, Subject, Text } from "@vestibule/emails";

type Props = {
  user: { displayName: string | null };
  project: { displayName: string };
  variables: { team_display_name: string; link: string };
};

export function EmailTemplate({ project, variables }: Props) {
  return (
    <>
      <Subject value={`You have been invited to join ${variables.team_display_name}`} />
      <NotificationCategory value="Transactional" />
      <Heading style={{ fontSize: "20px", margin: "0 0 16px" }}>Join {variables.team_display_name}</Heading>
      <Text>
        You have been invited to join the team {variables.team_display_name} at {project.displayName}. Open the link below to
        accept the invitation.
      </Text>
      <Button href={variables.link} style={{ backgroundColor: "#1d1d1f", color: "#ffffff", borderRadius: "6px" }}>
        Join the team
      </Button>
      <Text style={{ fontSize: "13px", color: "#6e6e73" }}>
        If the button does not work, open this link: <Link href={variables.link}>{variables.link}</Link>
      </Text>
    </>
  );
}

EmailTemplate.PreviewVariables = { team_display_name: "My Team", link: "https://example.com/handler/team-invitation?code=preview" };
