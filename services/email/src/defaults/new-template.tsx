import { Heading, NotificationCategory, Subject, Text } from "@vestibule/emails";

type Props = {
  user: { displayName: string | null };
  project: { displayName: string };
  variables: { message: string };
};

export function EmailTemplate({ user, project, variables }: Props) {
  return (
    <>
      <Subject value={`News from ${project.displayName}`} />
      <NotificationCategory value="Transactional" />
      <Heading style={{ fontSize: "20px", margin: "0 0 16px" }}>Hi{user.displayName ? ` ${user.displayName}` : ""}!</Heading>
      <Text>{variables.message}</Text>
    </>
  );
}

EmailTemplate.PreviewVariables = { message: "This is the text of the e-mail." };
