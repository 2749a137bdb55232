import { Heading, Subject, Text } from "@vestibule/emails";

type Props = {
  user: { displayName: string | null };
  project: { displayName: string };
};

export function EmailTemplate({ user, project }: Props) {
  return (
    <>
      <Subject value={`News from ${project.displayName}`} />
      <Heading style={{ fontSize: "20px", margin: "0 0 16px" }}>Hi{user.displayName ? ` ${user.displayName}` : ""}!</Heading>
      <Text>Write your message here.</Text>
    </>
  );
}
